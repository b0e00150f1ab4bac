import type {
  ApprovalPolicy,
  EventDraft,
  FinishReason,
  StepwiseEvent,
  ToolCall,
  Usage,
} from '../../shared/protocol'
import type { ModelProvider, ModelRequest, ModelTurn, TrafficEntry, TranscriptItem } from '../providers/types'
import { ModelWindow } from '../context/model-window'
import { ProviderError } from '../providers/types'
import { withRetry, type RetryOptions } from '../providers/retry'
import { repairMessage } from '../providers/toolcalls'
import { INTERRUPTED_OUTPUT, usedCallIds, withUniqueCallIds } from '../providers/transcript'
import type { Store } from '../store/types'
import { journaledReadTracker, replayReads, type JournaledReadTracker } from '../tools/read-tracker'
import type { ToolContext, ToolDefinition } from '../tools/types'
import type { Approver } from './approvals'
import { isMcpTool, type McpTool } from '../mcp/tools'
import { ToolRunner, type CheckpointTaker } from './tool-runner'
import { userMessageWithResources, type MentionedResource } from './mentions'
import { describeProviderError, type ErrorAudience } from './errors'
import { pushAll } from '../../shared/arrays'
import { foreground } from '../foreground'

export type { CheckpointTaker } from './tool-runner'

export interface AgentOptions {
  store: Store
  sessionId: string
  provider: ModelProvider
  tools: readonly ToolDefinition[]
  toolContext: ToolContext
  checkpoints: CheckpointTaker
  approver: Approver
  policy: ApprovalPolicy
  /** Most model turns in one task (`--max-steps`). */
  maxSteps: number
  /** Most tool calls run in one task (`--max-tool-calls`; the original limit, 50, by default). */
  maxToolCalls?: number
  system: string
  /** --until-green: verify build and tests when the model says it is done, and repair up to maxRounds. */
  repair?: {
    maxRounds: number
    verify(signal: AbortSignal): Promise<{ passed: boolean; failures: string[] }>
  }
  /** Called with each event after it is durably stored. */
  emit?: (event: StepwiseEvent) => void
  retry?: Partial<Omit<RetryOptions, 'signal' | 'onRetry'>>
  now?: () => number
  /**
   * A fork's continued run (`continueTurn`): the transcript rebuilt from the stored
   * history (agent/resume.ts) and how many model turns it holds, so steps number on;
   * the stored events it was rebuilt from (loaded once per turn), for the session's reads.
   */
  resume?: { transcript: TranscriptItem[]; modelSteps: number; events: readonly StepwiseEvent[] }
  /**
   * Messages the user sent while the turn ran (the host's queue): taken at each step boundary —
   * after a step's tool calls are answered, and when the model says it is done — and delivered as
   * user messages, so the model reads them before its next step.
   */
  inbox?: () => string[]
  /** Who reads the advice of a model error: flags for the CLI, the model picker for the app. */
  audience?: ErrorAudience
  /** MCP servers' tools (mcp/manager.ts): read at each turn, since a server's list can change. */
  mcp?: { tools(): readonly McpTool[]; isAllowed(server: string, tool: string): boolean }
}

export interface TurnOutcome {
  reason: FinishReason
  steps: number
  usage: Usage
  /** The model's last answer (its summary when done). */
  finalText: string
  /** Set when the session ended in an error: the provider error kind or `internal`. */
  errorKind?: ProviderError['kind'] | 'internal' | 'verify-failed'
  message?: string
}

/**
 * The agent loop (docs/architecture.md#a-session-step-by-step): user message → model turn → tool calls (with
 * approvals and checkpoints) → next turn, until the model answers without tools,
 * the step limit is hit, an unrecoverable error occurs or the signal aborts.
 * Every event is appended to the store before it is emitted.
 */
/** Most tool calls in one task unless asked otherwise: the original agent's limit. */
export const DEFAULT_MAX_TOOL_CALLS = 50

const toolLimitOutput = (limit: number) =>
  JSON.stringify({
    ok: false,
    error: `Not run: this task reached its limit of ${limit} tool calls. Say what is done and what is left.`,
  })

export class Agent {
  private readonly transcript: TranscriptItem[] = []
  private policy: ApprovalPolicy
  private usage: Usage = { inputTokens: 0, outputTokens: 0 }
  private steps = 0
  /** Ends the foreground hold under way (holdForeground); undefined while no turn runs. */
  private foregroundHold: (() => void) | undefined
  /** Tool calls run in this task, against maxToolCalls. */
  private toolCalls = 0
  /** Model turns before this run (a fork's history): event step numbers continue after them. */
  private readonly stepBase: number
  private readonly now: () => number

  /** Runs each tool call: approvals, the call, its checkpoint (tool-runner.ts). */
  private readonly tools: ToolRunner
  /** The last turn's unreadable tool call was sent back for a rewrite (asked once in a row). */
  private askedToRewriteCalls = false
  /** Repair rounds used so far (round 0 is the first check). */
  private repairRound = 0
  private readonly window: ModelWindow
  private readonly onTraffic = (entry: TrafficEntry): void =>
    this.opts.store.appendTraffic(this.opts.sessionId, entry)

  private readonly reads: JournaledReadTracker
  private readonly opts: AgentOptions
  /** Every call id the session has used: a server that numbers calls per response repeats them. */
  private readonly callIds: Set<string>

  constructor(options: AgentOptions) {
    // The reads belong to the session: a resumed chat starts from those its earlier turns made.
    // Replayed into the plain record, so the journal holds only what this run's calls change.
    if (options.resume) replayReads(options.toolContext.reads, options.resume.events)
    this.reads = journaledReadTracker(options.toolContext.reads)
    const opts = { ...options, toolContext: { ...options.toolContext, reads: this.reads } }
    this.opts = opts
    this.policy = opts.policy
    this.now = opts.now ?? Date.now
    pushAll(this.transcript, opts.resume?.transcript ?? [])
    this.callIds = usedCallIds(opts.resume?.events ?? [], this.transcript)
    this.stepBase = opts.resume?.modelSteps ?? 0
    this.tools = new ToolRunner({
      opts,
      reads: this.reads,
      record: (draft) => this.record(draft),
      policy: () => this.policy,
      allTools: () => this.allTools(),
      offeredTools: () => this.offeredTools(),
      now: this.now,
    })
    this.window = new ModelWindow(opts.provider, (draft) => this.record(draft), this.onTraffic)
  }

  private record(draft: EventDraft): StepwiseEvent {
    const event = this.opts.store.appendEvent(this.opts.sessionId, draft)
    this.opts.emit?.(event)
    return event
  }

  /** The user switched the approval policy: it applies from the next tool call. */
  setPolicy(policy: ApprovalPolicy): void {
    this.policy = policy
  }

  private allTools(): readonly ToolDefinition[] {
    const mcp = this.opts.mcp?.tools() ?? []
    return mcp.length > 0 ? [...this.opts.tools, ...mcp] : this.opts.tools
  }

  /** The tools the model is offered: `read-only` offers no mutating tool (but MCP tools marked read-only). */
  private offeredTools(): readonly ToolDefinition[] {
    const tools = this.allTools()
    if (this.policy !== 'read-only') return tools
    return tools.filter((t) => !t.mutating || (isMcpTool(t) && t.mcp.readOnly))
  }

  /** `resources`: MCP resources the message names, read and attached to it first (agent/mentions.ts). */
  async runTurn(
    message: string,
    signal: AbortSignal,
    resources: readonly MentionedResource[] = [],
  ): Promise<TurnOutcome> {
    if (resources.length === 0) {
      this.record({ type: 'user.message', text: message })
      this.transcript.push({ role: 'user', text: message })
    } else {
      const deps = {
        record: (d: EventDraft) => this.record(d),
        runTool: (call: ToolCall, s: AbortSignal) => this.tools.run(call, s),
        callIds: this.callIds,
      }
      const text = await userMessageWithResources(deps, message, resources, signal)
      this.transcript.push({ role: 'user', text })
    }
    return this.continueTurn(signal)
  }

  /** Runs the loop on the transcript as it stands (a fork's history), without a new user message. */
  async continueTurn(signal: AbortSignal): Promise<TurnOutcome> {
    const started = this.now()
    let outcome: Omit<TurnOutcome, 'steps' | 'usage'>
    this.holdForeground()
    try {
      outcome = await this.loop(signal)
    } catch (err) {
      outcome = this.failure(err, signal)
    } finally {
      this.foregroundHold?.()
      this.foregroundHold = undefined
    }
    const result: TurnOutcome = { ...outcome, steps: this.steps, usage: this.usage }
    this.record({
      type: 'session.finished',
      reason: result.reason,
      steps: result.steps,
      usage: result.usage,
      durationMs: this.now() - started,
      message: result.message,
    })
    return result
  }

  private async loop(signal: AbortSignal): Promise<Omit<TurnOutcome, 'steps' | 'usage'>> {
    let finalText = ''
    for (;;) {
      if (signal.aborted) return { reason: 'interrupted', finalText, message: 'Interrupted by the user.' }
      if (this.steps >= this.opts.maxSteps) {
        return {
          reason: 'step-limit',
          finalText,
          message: `Stopped after ${this.steps} model steps (the limit). Continue with a higher --max-steps or a narrower task.`,
        }
      }
      if (this.steps > 0) this.deliverQueued()
      this.steps += 1
      const turn = await this.modelTurn(this.stepBase + this.steps, signal)
      finalText = turn.text
      if (this.askToRewriteCalls(turn, this.stepBase + this.steps)) continue
      if (turn.toolCalls.length === 0) {
        // A message that arrived while the model wrote its answer is answered in this turn.
        if (this.deliverQueued() > 0) continue
        if (!this.opts.repair) return { reason: 'done', finalText }
        const verdict = await this.verify(signal)
        if (verdict) return { ...verdict, finalText }
        continue
      }
      const maxToolCalls = this.opts.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS
      if (await this.runCalls(turn.toolCalls, maxToolCalls, signal))
        return {
          reason: 'step-limit',
          finalText,
          message: `Stopped after ${this.toolCalls} tool calls (the limit). ${
            this.opts.audience === 'app'
              ? 'Send a message to go on, or raise "Max tool calls a turn" in Settings.'
              : 'Continue with a higher --max-tool-calls or a narrower task.'
          }`,
        }
    }
  }

  /** Runs a step's tool calls, each answered in the transcript; true when the tool-call limit was reached. */
  private async runCalls(
    calls: readonly ToolCall[],
    maxToolCalls: number,
    signal: AbortSignal,
  ): Promise<boolean> {
    let overLimit = false
    await this.tools.announce(calls, this.stepBase + this.steps)
    for (const call of calls) {
      overLimit ||= this.toolCalls >= maxToolCalls
      if (!overLimit && !signal.aborted) this.toolCalls += 1
      // A stop during a tool, or the tool-call limit, still answers every call, so the transcript stays valid.
      const output = signal.aborted
        ? INTERRUPTED_OUTPUT
        : overLimit
          ? toolLimitOutput(maxToolCalls)
          : JSON.stringify(await this.tools.run(call, signal))
      this.transcript.push({
        role: 'tool',
        callId: call.id,
        name: call.name,
        // A result larger than the window allows is cut with a marker saying how to ask for less.
        output: await this.window.capToolOutput(call, output, signal),
      })
    }
    return overLimit
  }

  /** Delivers the queued messages (Options.inbox) as user messages; returns how many. */
  private deliverQueued(): number {
    const texts = this.opts.inbox?.() ?? []
    for (const text of texts) {
      this.record({ type: 'user.message', text, queued: true })
      this.transcript.push({ role: 'user', text })
    }
    return texts.length
  }

  /**
   * Call markup the model wrote could not be read (ModelTurn.toolCallRepair): the turn
   * must not end as "done" on it. The model is asked once to write the call again in
   * its format, and the timeline says so; a second failure in a row ends the turn with
   * the text as written. True when the model was asked.
   */
  private askToRewriteCalls(turn: ModelTurn, step: number): boolean {
    const repair = turn.toolCallRepair
    const askedBefore = this.askedToRewriteCalls
    this.askedToRewriteCalls = false
    if (!repair || turn.toolCalls.length > 0) return false
    const { family, problem, format } = repair
    if (askedBefore) {
      this.record({ type: 'toolcall.unparsed', step, family, problem, format })
      return false
    }
    const text = repairMessage(
      repair,
      this.offeredTools().map((t) => t.name),
    )
    this.record({ type: 'toolcall.unparsed', step, family, problem, format, repair: text })
    this.transcript.push({ role: 'user', text })
    this.askedToRewriteCalls = true
    return true
  }

  /**
   * The repair loop (--until-green): the model says it is done, so build and tests
   * run; while they fail, the failures go back to the model, up to `maxRounds`.
   * Returns how the session ends, or undefined to give the model another round.
   */
  private async verify(
    signal: AbortSignal,
  ): Promise<Omit<TurnOutcome, 'steps' | 'usage' | 'finalText'> | undefined> {
    const repair = this.opts.repair!
    const result = await repair.verify(signal)
    const round = this.repairRound
    this.record({
      type: 'verify.finished',
      round,
      maxRounds: repair.maxRounds,
      passed: result.passed,
      failures: result.failures,
    })
    if (result.passed) return { reason: 'done' }
    if (signal.aborted) return { reason: 'interrupted', message: 'Interrupted by the user.' }
    const list = result.failures.map((f) => `- ${f}`).join('\n')
    if (round >= repair.maxRounds) {
      return {
        reason: 'error',
        errorKind: 'verify-failed',
        message: `Still failing after ${repair.maxRounds} repair rounds:\n${list}`,
      }
    }
    this.repairRound += 1
    const text = `The build or tests still fail (repair round ${this.repairRound} of ${repair.maxRounds}). Fix these, then say you are done:\n${list}`
    this.record({ type: 'user.message', text })
    this.transcript.push({ role: 'user', text })
    return undefined
  }

  /**
   * The process's foreground (foreground.ts), from a turn's start to its end, so background walks and
   * index batches yield to what the user waits on: a step's calls, their events, the next request's
   * making, and the model's answer. A model on this machine works on the same cores; a fast server's
   * answer is read without a background unit in its way. A hold keeps background work back for at
   * most a second, so a long answer or command lets it go on.
   */
  private holdForeground(): void {
    this.foregroundHold ??= foreground.hold()
  }

  /** A new hold for what comes next, with a bound of its own; then the old one ends. */
  private renewForeground(): void {
    const release = this.foregroundHold
    this.foregroundHold = foreground.hold()
    release?.()
  }

  /** The model's answer to a request just sent: its wait, and what follows it, each under a fresh hold. */
  private async answerOf(answer: Promise<ModelTurn>): Promise<ModelTurn> {
    // A hold's bound runs from when it is taken: the model's wait gets its own.
    this.renewForeground()
    const turn = await answer
    this.renewForeground()
    return turn
  }

  private async modelTurn(step: number, signal: AbortSignal): Promise<ModelTurn> {
    const { provider } = this.opts
    const request: ModelRequest = {
      system: this.opts.system,
      transcript: this.transcript,
      // A small window gets the compact tool set (context/compact-prompt.ts).
      tools: await this.window.toolSpecs(this.offeredTools(), signal),
    }
    const started = this.now()
    this.tools.beginTurn()
    const send = () =>
      withRetry(
        () =>
          provider.streamTurn(
            request,
            {
              onText: (text) => {
                if (!text) return
                this.record({ type: 'assistant.delta', step, text })
                this.tools.noticeText(text)
              },
              onTraffic: this.onTraffic,
              // A command's preparations start while the model writes its arguments.
              onToolCall: (name) => this.tools.warm(name),
            },
            signal,
          ),
        {
          ...this.opts.retry,
          signal,
          onRetry: (attempt, delayMs, error) =>
            this.record({ type: 'model.retry', step, attempt, delayMs, reason: error.message }),
        },
      )
    await this.window.fit(request, signal)
    let estimated = this.window.estimate(request)
    let turn: ModelTurn
    try {
      turn = await this.answerOf(send())
    } catch (err) {
      // The server counts differently from us: compact harder and retry once, never in a loop.
      if (!(err instanceof ProviderError) || err.kind !== 'context-overflow') throw err
      await this.window.fit(request, signal, { afterOverflow: true })
      estimated = this.window.estimate(request)
      turn = await this.answerOf(send())
    } finally {
      this.tools.answerComplete()
    }
    turn = withUniqueCallIds(turn, this.callIds)
    // A server count below our estimate (a prompt cache hit, or none at all) is not trusted.
    const counted = this.window.calibrate(estimated, turn.usage.inputTokens)
    const context = { ...counted, windowTokens: await this.window.windowTokens(signal) }
    this.usage = {
      inputTokens: this.usage.inputTokens + turn.usage.inputTokens,
      outputTokens: this.usage.outputTokens + turn.usage.outputTokens,
    }
    this.record({
      type: 'assistant.message',
      step,
      text: turn.text,
      toolCalls: turn.toolCalls,
      usage: turn.usage,
      durationMs: this.now() - started,
      provider: provider.id,
      model: provider.model,
      context,
      ...(turn.textToolCalls ? { textToolCalls: true } : {}),
    })
    this.transcript.push({
      role: 'assistant',
      text: turn.text,
      toolCalls: turn.toolCalls,
      responseId: turn.responseId,
    })
    return turn
  }

  private failure(err: unknown, signal: AbortSignal): Omit<TurnOutcome, 'steps' | 'usage'> {
    if (signal.aborted) return { reason: 'interrupted', finalText: '', message: 'Interrupted by the user.' }
    const described = describeProviderError(err, this.opts.provider, this.opts.audience)
    this.record({ type: 'error', code: described.code, message: described.message, hint: described.hint })
    return {
      reason: 'error',
      finalText: '',
      errorKind: err instanceof ProviderError ? err.kind : 'internal',
      message: described.hint ? `${described.message} ${described.hint}` : described.message,
    }
  }
}
