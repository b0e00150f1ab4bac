import type { StepwiseEvent } from './protocol'

/**
 * The one meaning of "step" across the app, the CLI and the docs: something a person
 * recognises on the timeline — a message (the user's, or the model's reply), a tool call
 * (from its start through its approval and output to its result), a change to the files
 * (a checkpoint, or an undo / rewind / fork putting them back), or another mark (an error,
 * a compaction, a fork, a finding, a model switch, the end of a run). Steps are numbered
 * 1, 2, 3… in the order they end; step 0 is the session before its first step.
 *
 * A step ends at one event (its `seq`); the events between two ends (streamed text, tool
 * output, approvals) belong to the step they lead to. Everything that takes a step number
 * (replay, `/rewind N`, `sessions fork --at N`, `sessions rewind --to N`) means this step
 * and acts on the state right after its last event: the replay engine reduces exactly the
 * events up to there, so "at step N" is the same state wherever it is read.
 */

export type StepKind = 'message' | 'tool' | 'change' | 'other'

export interface Step {
  /** 1-based number of the step in its session. */
  n: number
  kind: StepKind
  /** The seq of the step's last event: the state "at step n" is the session right after it. */
  seq: number
  /** How many of the session's events the state at this step holds (the events up to `seq`). */
  count: number
  /** When the step ended (its last event's time). */
  ts: number
}

/** Which kind of step an event ends, or null when it is part of the step that follows. */
export function stepKindOf(event: StepwiseEvent): StepKind | null {
  switch (event.type) {
    case 'user.message':
    case 'assistant.message':
      return 'message'
    case 'tool.finished':
      return 'tool'
    case 'checkpoint.created':
    case 'checkpoint.restored':
      return 'change'
    case 'error':
    case 'context.compacted':
    case 'session.forked':
    case 'review.finding':
    case 'verify.finished':
    case 'toolcall.unparsed':
    case 'session.configured':
    case 'session.finished':
      return 'other'
    case 'session.started':
    case 'change.proposed':
    case 'assistant.delta':
    case 'model.retry':
    case 'tool.started':
    case 'tool.output':
    case 'approval.requested':
    case 'approval.resolved':
    case 'turn.started':
    case 'turn.finished':
      return null
    default: {
      const unknown: never = event
      void unknown
      return null // a newer core's event: it belongs to the step that follows
    }
  }
}

/** What an unfinished step at the end of a live session is, from its first event. */
function openKind(event: StepwiseEvent): StepKind {
  if (event.type === 'tool.started' || event.type === 'approval.requested' || event.type === 'tool.output')
    return 'tool'
  if (event.type === 'assistant.delta' || event.type === 'model.retry') return 'message'
  return 'other'
}

/**
 * The session's steps, in order. Events after the last step's end that are more than
 * bookkeeping (a reply still streaming, a tool still running) make one last, open step,
 * so a replay reaches the whole of what was stored.
 */
export function stepsOf(events: readonly StepwiseEvent[]): Step[] {
  const steps: Step[] = []
  let pending: StepwiseEvent | undefined
  events.forEach((event, i) => {
    const kind = stepKindOf(event)
    if (kind === null) {
      if (
        !pending &&
        event.type !== 'session.started' &&
        event.type !== 'turn.started' &&
        event.type !== 'turn.finished'
      )
        pending = event
      return
    }
    steps.push({ n: steps.length + 1, kind, seq: event.seq, count: i + 1, ts: event.ts })
    pending = undefined
  })
  const last = events[events.length - 1]
  if (pending && last)
    steps.push({
      n: steps.length + 1,
      kind: openKind(pending),
      seq: last.seq,
      count: events.length,
      ts: last.ts,
    })
  return steps
}

/** The step an event belongs to (the first step ending at or after it); 0 before the first step. */
export function stepNumberAt(steps: readonly Step[], seq: number): number {
  let lo = 0
  let hi = steps.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (steps[mid].seq < seq) lo = mid + 1
    else hi = mid
  }
  return lo < steps.length ? steps[lo].n : steps.length
}

/** The step an event belongs to: 0 for the session's start, else stepNumberAt. */
export function stepOfEvent(steps: readonly Step[], event: Pick<StepwiseEvent, 'type' | 'seq'>): number {
  return event.type === 'session.started' ? 0 : stepNumberAt(steps, event.seq)
}

/** The last step ended at or before `seq` (0 when none has): where the state right after `seq` stands. */
export function stepNumberAfter(steps: readonly Step[], seq: number): number {
  let n = 0
  for (const s of steps) {
    if (s.seq > seq) break
    n = s.n
  }
  return n
}

export class StepNumberError extends Error {
  override name = 'StepNumberError'
}

/**
 * The seq "step n" means: its last event's, or the session's first event's for step 0.
 * A number out of range is refused with the range to choose from.
 */
export function seqOfStep(events: readonly StepwiseEvent[], n: number, steps = stepsOf(events)): number {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new StepNumberError(`step ${n} is not a step number: use a whole number from 0 to ${steps.length}.`)
  if (n === 0) {
    const first = events[0]
    if (!first) throw new StepNumberError('the session has no events.')
    return first.seq
  }
  const step = steps[n - 1]
  if (!step)
    throw new StepNumberError(
      `step ${n} is out of range: the session has ${steps.length} step${steps.length === 1 ? '' : 's'} (0 is its start).`,
    )
  return step.seq
}

/** The next (dir 1) or previous (dir -1) step of `kind` from step `n`, or undefined when there is none. */
export function nextStepOf(
  steps: readonly Step[],
  n: number,
  kind: StepKind,
  dir: 1 | -1,
): number | undefined {
  for (let i = n - 1 + dir; i >= 0 && i < steps.length; i += dir)
    if (steps[i].kind === kind) return steps[i].n
  return undefined
}
