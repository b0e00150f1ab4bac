import type {
  ApprovalPolicy,
  EventDraft,
  StepwiseEvent,
  ToolAttachment,
  ToolCall,
} from '../../shared/protocol'
import { errorMessage } from '../../shared/errors'
import { runMcpCall } from './mcp-run'
import { isMcpTool } from '../mcp/tools'
import { isAgentFile } from '../containment/agent-files'
import { spotToolNames, type NameSpotter } from '../providers/toolcalls/spot'
import { findTool, parseToolCall, unknownToolError } from '../tools/registry'
import type { JournaledReadTracker } from '../tools/read-tracker'
import { isActionTool, isFileChangeTool, type ToolDefinition, type ToolResult } from '../tools/types'
import type { Store } from '../store/types'
import type { ToolContext } from '../tools/types'
import type { Approver } from './approvals'
import { runAction, runFileChange, type MutationDeps } from './mutations'
import { announceChanges } from './proposals'

/**
 * One tool call of the agent loop (loop.ts), start to end: `tool.started`, the call — through
 * the approval model (decide.ts) for file changes, commands and MCP calls — `tool.finished` with
 * what the call read, and the checkpoint after anything it applied. A tool that throws broke an
 * invariant; the model still gets an answer.
 */

/** Takes a checkpoint of the project after a change was applied. */
export interface CheckpointTaker {
  takeSnapshot(opts: { sessionId: string; label?: string }): Promise<{
    info: { id: number }
    changed: { added: string[]; modified: string[]; deleted: string[] }
  }>
  /** A command may change the tree: get the checkpoint after it ready while it runs (Snapshotter). */
  expectChanges?(): Promise<void>
}

export interface ToolRunnerDeps {
  /** The agent's options (loop.ts AgentOptions) that a tool call reads. */
  opts: {
    store: Store
    sessionId: string
    toolContext: ToolContext
    checkpoints: CheckpointTaker
    approver: Approver
    mcp?: { isAllowed(server: string, tool: string): boolean }
  }
  reads: JournaledReadTracker
  record(draft: EventDraft): StepwiseEvent
  policy(): ApprovalPolicy
  allTools(): readonly ToolDefinition[]
  offeredTools(): readonly ToolDefinition[]
  now(): number
}

export class ToolRunner {
  private readonly mutations: MutationDeps
  /** Calls whose file change the user approved themselves: their agent files are not marked. */
  private readonly approvedCalls = new Set<string>()
  /** Preparations a streaming call began (`warm`), for this turn's next call that needs them. */
  private early: { writes: boolean; ready: Promise<void> } | undefined
  /** A warm-up waiting to see whether the answer is still streaming (`warm`). */
  private warming: NodeJS.Timeout | undefined
  /** This turn's spotter of prepared-for tools' names in streamed text (`noticeText`). */
  private spotter: NameSpotter | undefined

  constructor(private readonly deps: ToolRunnerDeps) {
    const { sessionId, toolContext } = deps.opts
    const root = toolContext.root
    let allFileChanges = false
    this.mutations = {
      sessionId: sessionId,
      toolContext,
      approver: deps.opts.approver,
      record: (draft) => deps.record(draft),
      policy: deps.policy,
      grants: () => ({
        fileChanges: allFileChanges,
        rules: deps.opts.store.approvals.listRules(root, sessionId),
        mcpAutoEdit: (server, tool) => deps.opts.mcp?.isAllowed(server, tool) ?? false,
      }),
      allowAllFileChanges: () => {
        allFileChanges = true
      },
      saveRule: (scope, pattern) =>
        deps.opts.store.approvals.addRule({
          scope,
          pattern,
          project: root,
          sessionId: sessionId,
        }),
      approvedByUser: (callId) => this.approvedCalls.add(callId),
    }
  }

  /** Before a step's calls run: its file changes that will ask, announced together (proposals.ts). */
  async announce(calls: readonly ToolCall[], step: number): Promise<void> {
    try {
      await announceChanges(this.mutations, this.deps.allTools(), calls, step)
    } catch {
      // Only the preview failed; each change is still asked when its call runs.
    }
  }

  /**
   * The model began streaming a call to `name` (StreamHandlers.onToolCall): its arguments are still
   * to come. A command or a server's tool will need preparing (`prepare` below) if it runs, so that
   * starts while a real model writes the arguments — on a big tree its ~0.5 s then runs beside
   * them, not after. It starts only if the answer is still streaming WARM_AFTER_MS later
   * (`answerComplete` stops it): an answer that came in one burst goes the usual way, prompt first,
   * and a call then refused outright prepares nothing. Nothing starts for other tools, under
   * `read-only` (which refuses them), or twice in a turn; a call refused once whole has only
   * started work that stands on its own (the watch serves later commands, the record is the
   * session's).
   */
  warm(name: string): void {
    if (!this.mayWarm()) return
    const tool = findTool(name, this.deps.allTools())
    if (!tool || !needsPreparing(tool)) return
    this.warming = setTimeout(() => {
      this.warming = undefined
      this.early = { writes: mayWrite(tool), ready: this.startPreparing(tool) }
    }, WARM_AFTER_MS)
  }

  /**
   * Streamed text of the answer. A call written as text (a model without native calling) is
   * found only once the answer is whole, but its tool's name shows as it streams
   * (providers/toolcalls/spot.ts): a command's or a server tool's name warms it. Named in prose
   * instead, it warms a call that may not come (harmless, as in `warm`).
   */
  noticeText(delta: string): void {
    if (!this.mayWarm()) return
    this.spotter ??= spotToolNames(
      this.deps
        .allTools()
        .filter(needsPreparing)
        .map((t) => t.name),
    )
    const name = this.spotter.push(delta)
    if (name) this.warm(name)
  }

  /** Not twice a turn (one begun or waiting), and never under `read-only`, which refuses them. */
  private mayWarm(): boolean {
    return !this.early && !this.warming && this.deps.policy() !== 'read-only'
  }

  /** The model's answer is whole (or failed): a warm-up not begun is left to the call itself. */
  answerComplete(): void {
    clearTimeout(this.warming)
    this.warming = undefined
  }

  /** A new model turn: what the last one warmed and no call took is not this turn's to reuse. */
  beginTurn(): void {
    this.answerComplete()
    this.early = undefined
    // Tools come and go between turns (an MCP server's list).
    this.spotter = undefined
  }

  async run(call: ToolCall, signal: AbortSignal): Promise<ToolResult> {
    const started = this.deps.now()
    const tool = findTool(call.name, this.deps.allTools())
    const parsed = tool ? parseToolCall(tool, call.arguments) : undefined
    this.deps.record({
      type: 'tool.started',
      callId: call.id,
      name: tool?.name ?? call.name,
      args: parsed?.ok ? parsed.input : call.arguments,
      mutating: tool?.mutating ?? false,
    })
    let result: ToolResult
    let applied = false
    let attachments: ToolAttachment[] | undefined
    if (!tool) result = { ok: false, error: unknownToolError(call.name, this.deps.offeredTools()) }
    else if (!parsed?.ok) result = { ok: false, error: parsed?.error ?? 'Invalid arguments.' }
    else {
      try {
        let ready: Promise<void> | undefined
        const prepare = () => (ready ??= this.prepare(tool))
        const running = { callId: call.id, input: parsed.input, signal, prepare }
        if (isMcpTool(tool)) {
          const ran = await runMcpCall(this.mutations, tool, running)
          ;({ result, attachments } = ran)
          applied = ran.executed && mayWrite(tool)
        } else if (isActionTool(tool)) {
          const ran = { executed: false }
          result = await runAction(this.mutations, tool, running, ran)
          // A command that ran may change any file, whatever it returned: re-snapshot. One the
          // policy or the user refused changed nothing: no checkpoint.
          applied = ran.executed
        } else if (isFileChangeTool(tool)) {
          result = await runFileChange(this.mutations, tool, running)
          applied = result.ok
        } else {
          result = await tool.run(parsed.input, this.deps.opts.toolContext)
        }
      } catch (err) {
        // A tool that throws broke an invariant; the model still gets an answer.
        result = { ok: false, error: `Internal error in ${tool.name}: ${errorMessage(err)}` }
      }
    }
    const reads = this.deps.reads.take()
    this.deps.record({
      type: 'tool.finished',
      callId: call.id,
      name: tool?.name ?? call.name,
      ok: result.ok,
      result,
      durationMs: this.deps.now() - started,
      ...(attachments ? { attachments } : {}),
      ...(reads.length > 0 ? { reads } : {}),
    })
    if (applied) await this.checkpoint(call.id, tool !== undefined && !isFileChangeTool(tool))
    return result
  }

  /**
   * What a command or a server's tool needs done before it starts (RunningCall.prepare: begun
   * once the prompt is out, so on a big tree its ~0.5 s runs while the user reads the prompt
   * instead of delaying it — or earlier, by `warm`, while the model streamed the call): one that
   * may change files (`mayWrite`) gets the checkpoint after it ready; and either may change
   * ignored folders, whose record is taken before the session's first.
   */
  private prepare(tool: ToolDefinition): Promise<void> {
    if (!needsPreparing(tool)) return Promise.resolve()
    const early = this.early
    // Taken by one call: the checkpoint's watch is asked for again by the next (in the
    // snapshots' queue, after this one's checkpoint).
    this.early = undefined
    if (early && (early.writes || !mayWrite(tool))) return early.ready
    return this.startPreparing(tool)
  }

  private startPreparing(tool: ToolDefinition): Promise<void> {
    const { checkpoints, toolContext } = this.deps.opts
    const ready = Promise.all([
      mayWrite(tool) ? checkpoints.expectChanges?.() : undefined,
      toolContext.beforeCommand?.(),
    ]).then(() => undefined)
    // Awaited where the call starts; a call the user then turns down leaves it unobserved.
    ready.catch(() => undefined)
    return ready
  }

  /** `ranCommand`: a command or MCP tool ran, which may also have changed ignored folders. */
  private async checkpoint(callId: string, ranCommand: boolean): Promise<void> {
    try {
      const { info, changed } = await this.deps.opts.checkpoints.takeSnapshot({
        sessionId: this.deps.opts.sessionId,
        label: callId,
      })
      const paths = [...changed.added, ...changed.modified, ...changed.deleted].sort()
      // File tools cannot write ignored folders (the sandbox denies them): only commands are looked after.
      const ignored = ranCommand ? await this.deps.opts.toolContext.ignoredChanges?.() : undefined
      const agentFiles = this.approvedCalls.has(callId) ? [] : paths.filter(isAgentFile)
      this.deps.record({
        type: 'checkpoint.created',
        snapshotId: info.id,
        callId,
        paths,
        // Present after every command where a record is kept (empty: nothing differs), so the
        // newest one is the net state.
        ...(ignored ? { ignored } : {}),
        ...(agentFiles.length > 0 ? { agentFiles } : {}),
      })
    } catch (err) {
      // The change is on disk; only its checkpoint failed. Say so and carry on.
      this.deps.record({
        type: 'error',
        code: 'checkpoint-failed',
        message: `The change was applied but its checkpoint could not be saved: ${errorMessage(err)}`,
        hint: 'Undo for this step will not be available. Check free disk space and the data folder.',
      })
    }
  }
}

/**
 * How long a call's name must have been streaming before its preparations start (`warm`): a model
 * writing arguments takes longer; an answer that arrived in one burst is whole sooner.
 */
const WARM_AFTER_MS = 30

/** Commands and servers' tools may change files and ignored folders: they are prepared for. */
function needsPreparing(tool: ToolDefinition): boolean {
  return isMcpTool(tool) || isActionTool(tool)
}

/**
 * A command may change any file; a server's tool too, unless it says it only reads (taken at its
 * word). Such a call gets a checkpoint ready before it and one after it.
 */
function mayWrite(tool: ToolDefinition): boolean {
  return isMcpTool(tool) ? !tool.mcp.readOnly : isActionTool(tool)
}
