import { withDelta, withRetry } from './partial-text'
import type { StepwiseEvent } from './protocol'
import { endProposals, newestModelRow, reduceToolEvent } from './reducerTools'
import { emptySessionView, type IgnoredFileChange, type SessionView, type TimelineStep } from './reducerTypes'

export { emptySessionView } from './reducerTypes'
export type {
  CheckpointStep,
  IgnoredFileChange,
  McpCall,
  SessionView,
  StepStatus,
  TimelineStep,
  ToolStep,
} from './reducerTypes'

/**
 * The one reducer from events to what a session looks like, used by the live UI,
 * by replay and by the CLI's `sessions show`. It must stay pure and total: every
 * event type is handled (the switch is exhaustive), so a replayed session looks
 * exactly as it did live.
 */

export function reduceEvents(
  events: readonly StepwiseEvent[],
  initial: SessionView = emptySessionView,
): SessionView {
  return events.reduce(reduceEvent, initial)
}

function updateModel(
  steps: TimelineStep[],
  stepNo: number,
  update: (
    step: Extract<TimelineStep, { kind: 'model' }> | undefined,
  ) => Extract<TimelineStep, { kind: 'model' }>,
): TimelineStep[] {
  const last = steps[steps.length - 1]
  if (last?.kind === 'model' && last.step === stepNo && last.status === 'streaming') {
    const next = steps.slice()
    next[next.length - 1] = update(last)
    return next
  }
  return [...steps, update(undefined)]
}

type ModelStep = Extract<TimelineStep, { kind: 'model' }>

/** The model step's text after a delta or a retry (shared/partial-text.ts), without the restart flag when unset. */
function streamed(step: ModelStep, next: { text: string; restart: boolean }): ModelStep {
  const { restart: _was, ...rest } = step
  return next.restart ? { ...rest, text: next.text, restart: true } : { ...rest, text: next.text }
}

/**
 * A model step still streaming when its turn ended (a stop, an error after retries) or when a
 * new turn began after a process was killed: it keeps its text and reads as interrupted.
 */
function endStreaming(steps: TimelineStep[]): TimelineStep[] {
  // Only the newest model step can still be streaming: the search ends at it, not at the first row.
  const i = newestModelRow(steps)
  const step = i < 0 ? undefined : steps[i]
  if (step?.kind !== 'model' || step.status !== 'streaming') return steps
  const next = steps.slice()
  next[i] = { ...step, status: 'interrupted' }
  return next
}

export function reduceEvent(state: SessionView, event: StepwiseEvent): SessionView {
  // A session's seqs only grow: an event at or below the last one folded is a redelivery (a
  // reconnect's catch-up overlapping the live stream), already in the view. Folding it again
  // would double its text, its usage and its pending approval.
  if (event.seq <= state.lastSeq) return state
  const s: SessionView = { ...state, lastSeq: event.seq }
  switch (event.type) {
    case 'session.started':
    case 'session.configured':
    case 'session.finished':
    case 'turn.started':
    case 'turn.finished':
      return reduceSessionEvent(s, event)
    case 'user.message':
    case 'assistant.delta':
    case 'model.retry':
    case 'assistant.message':
    case 'toolcall.unparsed':
      return reduceModelEvent(s, event)
    case 'change.proposed':
    case 'tool.started':
    case 'tool.output':
    case 'approval.requested':
    case 'approval.resolved':
    case 'tool.finished':
      return reduceToolEvent(s, event)
    case 'checkpoint.created':
      return checkpointed(s, event)
    case 'checkpoint.restored':
      return restored(s, event)
    case 'context.compacted':
    case 'session.forked':
    case 'review.finding':
    case 'verify.finished':
    case 'error':
      return reduceRowEvent(s, event)
    default: {
      // Every known kind is handled (checked here at compile time). A kind this build does not
      // know yet (a newer core's event) changes nothing but the seq: the view must not break.
      const _known: never = event
      return s
    }
  }
}

type EventOf<T extends StepwiseEvent['type']> = Extract<StepwiseEvent, { type: T }>

/** A session's own course: it starts, is configured, its turns end, it finishes. */
function reduceSessionEvent(
  s: SessionView,
  event: EventOf<
    'session.started' | 'session.configured' | 'session.finished' | 'turn.started' | 'turn.finished'
  >,
): SessionView {
  switch (event.type) {
    case 'session.started':
      return {
        ...s,
        sessionId: event.sessionId,
        repo: event.repo,
        provider: event.provider,
        model: event.model,
        baseUrl: event.baseUrl ?? null,
        approvalPolicy: event.approvalPolicy,
        parent: event.parent ?? null,
        ruleFilesChanged: event.ruleFilesChanged ?? [],
        startedAt: event.ts,
        status: 'idle',
      }
    case 'session.configured':
      return {
        ...s,
        provider: event.provider ?? s.provider,
        model: event.model ?? s.model,
        // As the core applies a switch (service/session-config.ts): a new provider drops the old server.
        baseUrl: event.baseUrl ?? (event.provider && event.provider !== s.provider ? null : s.baseUrl),
        approvalPolicy: event.approvalPolicy ?? s.approvalPolicy,
        steps: modelSwitched(s, event) ? [...s.steps, switchStep(s, event)] : s.steps,
      }
    case 'session.finished':
      return {
        ...s,
        status: 'finished',
        finishReason: event.reason,
        finishMessage: event.message ?? null,
        finishedAt: event.ts,
        pendingApprovals: [],
        steps: [
          ...endProposals(endStreaming(s.steps)),
          {
            kind: 'finish',
            seq: event.seq,
            ts: event.ts,
            reason: event.reason,
            message: event.message,
            modelSteps: event.steps,
            usage: event.usage,
            durationMs: event.durationMs,
          },
        ],
      }
    case 'turn.started':
      // The user.message (or the model's next step) that follows shows the turn.
      return s
    case 'turn.finished':
      // Closes a turn that ended without its session.finished (an internal error): nothing
      // stays streaming or waiting for an answer. After a session.finished it changes nothing.
      if (s.status === 'finished') return s
      return {
        ...s,
        status: 'finished',
        finishReason: event.reason,
        finishedAt: event.ts,
        pendingApprovals: [],
        steps: endProposals(endStreaming(s.steps)),
      }
  }
}

/** A new model step, streaming, before its first text or after a retry that came first. */
function streamingStep(
  event: EventOf<'assistant.delta' | 'model.retry'>,
  text: string,
  retries: number,
): ModelStep {
  return {
    kind: 'model',
    seq: event.seq,
    ts: event.ts,
    step: event.step,
    text,
    toolCalls: [],
    status: 'streaming',
    retries,
  }
}

/** The conversation: the user's message, the model's streamed and finished steps, a call it could not make. */
function reduceModelEvent(
  s: SessionView,
  event: EventOf<
    'user.message' | 'assistant.delta' | 'model.retry' | 'assistant.message' | 'toolcall.unparsed'
  >,
): SessionView {
  switch (event.type) {
    case 'user.message':
      return {
        ...s,
        status: 'thinking',
        steps: [
          ...endProposals(endStreaming(s.steps)),
          {
            kind: 'user',
            seq: event.seq,
            ts: event.ts,
            text: event.text,
            ...(event.queued ? { queued: true } : {}),
          },
        ],
      }
    case 'assistant.delta':
      return {
        ...s,
        status: 'thinking',
        steps: updateModel(s.steps, event.step, (prev) =>
          prev
            ? streamed(prev, withDelta({ text: prev.text, restart: prev.restart === true }, event.text))
            : streamingStep(event, event.text, 0),
        ),
      }
    case 'model.retry':
      return {
        ...s,
        steps: updateModel(s.steps, event.step, (prev) =>
          prev
            ? { ...streamed(prev, withRetry({ text: prev.text, restart: false })), retries: prev.retries + 1 }
            : streamingStep(event, '', 1),
        ),
      }
    case 'assistant.message':
      return answered(s, event)
    case 'toolcall.unparsed':
      return {
        ...s,
        status: event.repair ? 'thinking' : s.status,
        steps: [
          ...s.steps,
          {
            kind: 'unparsed-call',
            seq: event.seq,
            ts: event.ts,
            step: event.step,
            family: event.family,
            problem: event.problem,
            format: event.format,
            ...(event.repair !== undefined ? { repair: event.repair } : {}),
          },
        ],
      }
  }
}

/** A model step's end: its text and calls, what it cost, and the session's counts with it. */
function answered(s: SessionView, event: EventOf<'assistant.message'>): SessionView {
  return {
    ...s,
    status: event.toolCalls.length > 0 ? 'running-tool' : 'idle',
    model: event.model,
    provider: event.provider,
    modelSteps: s.modelSteps + 1,
    usage: {
      inputTokens: s.usage.inputTokens + event.usage.inputTokens,
      outputTokens: s.usage.outputTokens + event.usage.outputTokens,
    },
    steps: updateModel(s.steps, event.step, (prev): ModelStep => ({
      kind: 'model',
      seq: prev?.seq ?? event.seq,
      ts: prev?.ts ?? event.ts,
      step: event.step,
      text: event.text,
      toolCalls: event.toolCalls,
      usage: event.usage,
      durationMs: event.durationMs,
      status: 'ok',
      retries: prev?.retries ?? 0,
      model: event.model,
    })),
  }
}

/** A checkpoint after a change: its row, and what it says of agent files and ignored folders. */
function checkpointed(s: SessionView, event: EventOf<'checkpoint.created'>): SessionView {
  const ignored = event.ignored && ignoredSince(s.ignoredRecord, event.ignored)
  return {
    ...s,
    ...(event.ignored ? { ignoredRecord: event.ignored } : {}),
    ...(event.agentFiles
      ? { agentFilesChanged: [...new Set([...s.agentFilesChanged, ...event.agentFiles])] }
      : {}),
    steps: [
      ...s.steps,
      {
        kind: 'checkpoint',
        seq: event.seq,
        ts: event.ts,
        snapshotId: event.snapshotId,
        paths: event.paths,
        callId: event.callId,
        ...(event.agentFiles ? { agentFiles: event.agentFiles } : {}),
        ...(ignored && ignored.length > 0 ? { ignored } : {}),
      },
    ],
  }
}

/** A rewind or a fork: its row; a fork's history ends its parent's turn where it was cut. */
function restored(s: SessionView, event: EventOf<'checkpoint.restored'>): SessionView {
  return {
    ...s,
    // A fork's history stops mid-turn (after a tool's result, say); the fork waits for the user.
    status: event.kind === 'fork' ? 'idle' : s.status,
    steps: [
      // A fork copied its history without the parent's end: a turn cut there ended there.
      ...(event.kind === 'fork' ? endStreaming(s.steps) : s.steps),
      {
        kind: 'restore',
        seq: event.seq,
        ts: event.ts,
        restore: event.kind,
        snapshotId: event.snapshotId,
        savedSnapshotId: event.savedSnapshotId,
        toSeq: event.toSeq,
        paths: event.paths,
      },
    ],
  }
}

/** Events that add a row of their own to the timeline and change little else. */
function reduceRowEvent(
  s: SessionView,
  event: EventOf<'context.compacted' | 'session.forked' | 'review.finding' | 'verify.finished' | 'error'>,
): SessionView {
  switch (event.type) {
    case 'context.compacted':
      return {
        ...s,
        steps: [
          ...s.steps,
          {
            kind: 'compaction',
            seq: event.seq,
            ts: event.ts,
            beforeTokens: event.beforeTokens,
            afterTokens: event.afterTokens,
            ...(event.summary ? { summary: event.summary } : {}),
            ...(event.keptItems !== undefined
              ? { onRequest: event.focus ? { focus: event.focus } : {} }
              : {}),
          },
        ],
      }
    case 'session.forked':
      return {
        ...s,
        steps: [
          ...s.steps,
          {
            kind: 'fork',
            seq: event.seq,
            ts: event.ts,
            childSessionId: event.childSessionId,
            atSeq: event.atSeq,
            ...(event.atStep === undefined ? {} : { atStep: event.atStep }),
          },
        ],
      }
    case 'review.finding':
      return {
        ...s,
        steps: [...s.steps, { kind: 'finding', seq: event.seq, ts: event.ts, finding: event.finding }],
      }
    case 'verify.finished':
      return {
        ...s,
        status: event.passed ? s.status : 'thinking',
        steps: [
          ...s.steps,
          {
            kind: 'verify',
            seq: event.seq,
            ts: event.ts,
            round: event.round,
            maxRounds: event.maxRounds,
            passed: event.passed,
            failures: event.failures,
          },
        ],
      }
    case 'error':
      return {
        ...s,
        steps: [
          ...s.steps,
          {
            kind: 'error',
            seq: event.seq,
            ts: event.ts,
            message: event.message,
            code: event.code,
            hint: event.hint,
          },
        ],
      }
  }
}

type ConfiguredEvent = Extract<StepwiseEvent, { type: 'session.configured' }>

/** A switch names another model or provider than the session ran on (a policy switch is none). */
function modelSwitched(s: SessionView, event: ConfiguredEvent): boolean {
  if (!event.provider && !event.model) return false
  return (event.provider ?? s.provider) !== s.provider || (event.model ?? s.model) !== s.model
}

function switchStep(s: SessionView, event: ConfiguredEvent): TimelineStep {
  return {
    kind: 'switch',
    seq: event.seq,
    ts: event.ts,
    provider: event.provider ?? s.provider ?? '',
    model: event.model ?? s.model ?? '',
    ...(event.baseUrl ? { baseUrl: event.baseUrl } : {}),
    ...(s.provider && s.model ? { from: { provider: s.provider, model: s.model } } : {}),
  }
}

/** The entries of a record of ignored folders that are new or differ from the record before it. */
function ignoredSince(
  before: readonly IgnoredFileChange[],
  now: readonly IgnoredFileChange[],
): IgnoredFileChange[] {
  const was = new Map(before.map((c) => [c.path, c]))
  return now.filter((c) => {
    const old = was.get(c.path)
    return !old || old.status !== c.status || old.size !== c.size || old.sha256 !== c.sha256
  })
}
