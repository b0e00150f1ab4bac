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
   * instead of delaying it): one that may change files (`mayWrite`) gets the checkpoint after it
   * ready; and either may change ignored folders, whose record is taken before the session's first.
   */
  private prepare(tool: ToolDefinition): Promise<void> {
    if (!isMcpTool(tool) && !isActionTool(tool)) return Promise.resolve()
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
 * A command may change any file; a server's tool too, unless it says it only reads (taken at its
 * word). Such a call gets a checkpoint ready before it and one after it.
 */
function mayWrite(tool: ToolDefinition): boolean {
  return isMcpTool(tool) ? !tool.mcp.readOnly : isActionTool(tool)
}
