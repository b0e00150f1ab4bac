import type { ApprovalPolicy, EventDraft, StepwiseEvent } from '../../shared/protocol'
import { Agent, type AgentOptions, type TurnOutcome } from '../agent/loop'
import type { Approver } from '../agent/approvals'
import type { MentionedResource } from '../agent/mentions'
import { resumeBundle } from '../agent/resume'
import { verifyProject } from '../verify/verify'
import type { CommandSettings } from '../sandboxing/settings'
import type { ModelProvider } from '../providers/types'
import type { Sandbox } from '../containment/types'
import type { Snapshotter } from '../snapshot/snapshotter'
import type { Store } from '../store/types'
import { createReadTracker } from '../tools/read-tracker'
import type { ToolContext, ToolDefinition, ToolLimits } from '../tools/types'
import type { CodeContext } from './code-context'
import { errorMessage } from '../../shared/errors'

/**
 * One turn of a session (session.ts): what lives only while it runs — its abort signal, the
 * approver that answers it, its repair loop, the transcript rebuilt from the stored events and
 * the agent working on it — between a `turn.started` and a `turn.finished`. The session keeps
 * what outlives turns (sandbox, provider, code context, system prompt); the turn reads the store
 * afresh, so whatever happened between turns (a rewind, a compaction, a killed process's last
 * events) is what the model sees.
 */

export const DEFAULT_LIMITS: ToolLimits = { maxReadBytes: 400 * 1024, maxWriteBytes: 800 * 1024 }
export const DEFAULT_MAX_STEPS = 50

export type TurnKind = 'message' | 'retry' | 'continue'

/** What a host may set for one turn (the rest comes from the session's setup). */
export interface TurnOptions {
  /** The user's message; without one the model is asked again from where the session stands. */
  message?: string
  /** MCP resources the message names (`@SERVER:URI`): read and attached to it (agent/mentions.ts). */
  resources?: readonly MentionedResource[]
  /** `continue`: no message and no retry (a fork's re-run). Default: `message`, or `retry` without one. */
  kind?: TurnKind
  /** Until green: verify build and tests when the model says it is done, and repair. */
  repair?: { maxRounds: number; verify?: NonNullable<AgentOptions['repair']>['verify'] }
  /** Answers this turn's approvals instead of the session's (the CLI's terminal). */
  approver?: Approver
  audience?: AgentOptions['audience']
  /** Settings read when the turn starts (the app's settings can change between turns). */
  maxSteps?: number
  /** Called before the turn runs when its message is the session's first (the app names the chat after it). */
  onFirstMessage?: (message: string) => void
  /** Most tool calls in the turn (`--max-tool-calls`); the agent's default otherwise. */
  maxToolCalls?: number
  limits?: ToolLimits
  commands?: CommandSettings
  /** MCP servers' tools (mcp/manager.ts); their instructions join the turn's system prompt. */
  mcp?: AgentOptions['mcp'] & { instructions?(): string | undefined }
  /** Aborts the turn, as `Session.interrupt` does. */
  signal?: AbortSignal
}

/** What the session hands its turn. */
export interface TurnDeps {
  store: Store
  sessionId: string
  /** The session's events when the caller has just read them (a session loaded for this turn). */
  events?: readonly StepwiseEvent[]
  emit: (event: StepwiseEvent) => void
  sandbox: Sandbox
  snapshotter: Snapshotter
  baselineId: number
  /** What commands changed in ignored folders, when the session recorded them at its start. */
  ignoredChanges?: ToolContext['ignoredChanges']
  beforeCommand?: ToolContext['beforeCommand']
  provider: ModelProvider
  policy: ApprovalPolicy
  system: string
  code: CodeContext
  tools: readonly ToolDefinition[]
  approver: Approver
  retry?: AgentOptions['retry']
  inbox?: AgentOptions['inbox']
  /** Told the turn's agent, so a policy switch reaches the running turn. */
  onAgent(agent: Agent | undefined): void
}

/** Runs one turn to its end and records it; an internal error is recorded as the turn's end too. */
export async function playTurn(deps: TurnDeps, opts: TurnOptions, signal: AbortSignal): Promise<TurnOutcome> {
  const { store, sessionId } = deps
  const record = (draft: EventDraft): void => deps.emit(store.appendEvent(sessionId, draft))
  const events = deps.events ?? store.listEvents(sessionId)
  if (opts.message !== undefined && !events.some((e) => e.type === 'user.message'))
    opts.onFirstMessage?.(opts.message)
  const turn = events.filter((e) => e.type === 'turn.started').length + 1
  const kind = opts.kind ?? (opts.message === undefined ? 'retry' : 'message')
  const started = Date.now()
  record({ type: 'turn.started', turn, kind, ...(opts.repair ? { untilGreen: true } : {}) })
  // Any end is a place to continue from (stopped, failed, killed): see providers/transcript.ts.
  const resume = resumeBundle(events, { retry: kind === 'retry' })
  const toolContext: ToolContext = {
    root: deps.sandbox.root,
    sandbox: deps.sandbox,
    reads: createReadTracker(),
    limits: opts.limits ?? DEFAULT_LIMITS,
    baseline: deps.snapshotter.baselineReader(deps.baselineId),
    ignoredChanges: deps.ignoredChanges,
    beforeCommand: deps.beforeCommand,
    commands: opts.commands,
    index: deps.code.index,
    signal,
  }
  const repair = opts.repair && {
    maxRounds: opts.repair.maxRounds,
    verify:
      opts.repair.verify ??
      ((verifySignal: AbortSignal) => verifyProject({ ...toolContext, signal: verifySignal })),
  }
  let outcome: TurnOutcome
  let watcher: ReturnType<CodeContext['watch']> = undefined
  try {
    const agent = new Agent({
      store,
      sessionId,
      provider: deps.provider,
      tools: deps.tools,
      toolContext,
      checkpoints: deps.snapshotter,
      approver: opts.approver ?? deps.approver,
      policy: deps.policy,
      maxSteps: opts.maxSteps ?? DEFAULT_MAX_STEPS,
      maxToolCalls: opts.maxToolCalls,
      // After the session's prompt, so the prefix a provider caches stays the same across turns.
      system: [deps.system, opts.mcp?.instructions?.()].filter(Boolean).join('\n\n'),
      emit: deps.emit,
      retry: deps.retry,
      repair,
      resume,
      mcp: opts.mcp,
      inbox: deps.inbox,
      audience: opts.audience,
    })
    deps.onAgent(agent)
    watcher = deps.code.watch()
    // This process runs the session now: it reads as running while this process lives (store/liveness.ts).
    store.setSessionStatus(sessionId, 'running')
    outcome =
      opts.message === undefined
        ? await agent.continueTurn(signal)
        : await agent.runTurn(opts.message, signal, opts.resources)
    store.setSessionStatus(sessionId, outcome.reason === 'done' ? 'done' : outcome.reason)
  } catch (err) {
    outcome = internalFailure(err, record)
    store.setSessionStatus(sessionId, 'error')
  }
  deps.onAgent(undefined)
  try {
    // Right after the turn's last event, so a reader that saw its session.finished sees this next.
    record({ type: 'turn.finished', turn, reason: outcome.reason, durationMs: Date.now() - started })
  } finally {
    await watcher?.close()
  }
  return outcome
}

/** A turn that broke an invariant (a tool's store write failed, …): said, and the turn ends. */
function internalFailure(err: unknown, record: (draft: EventDraft) => void): TurnOutcome {
  const detail = errorMessage(err)
  const message = `The turn stopped on an internal error: ${detail}`
  try {
    record({
      type: 'error',
      code: 'internal',
      message,
      hint: 'Everything up to here is saved. Send your message again, or report the error.',
    })
  } catch {
    // The store cannot be written (a full disk): the liveness check reads the turn as interrupted.
  }
  return {
    reason: 'error',
    errorKind: 'internal',
    message,
    steps: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    finalText: '',
  }
}
