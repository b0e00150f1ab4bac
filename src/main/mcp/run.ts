import type { ToolAttachment } from '../../shared/protocol'
import type { MutationDeps } from '../agent/mutations'
import type { ToolResult } from '../tools/types'
import { describeCall, progressLine, type McpTool } from './tools'

/*
 * How an MCP tool call runs under each approval policy (docs/mcp.md#approvals). MCP
 * tools are actions: a server's `readOnlyHint` is a hint, never a permission.
 * - ask: every call asks, showing server, tool and arguments ("always" stops asking
 *   for that tool in this session);
 * - auto-edit: tools the user allowed (per server or per tool, in settings) run; others ask;
 * - full-auto: every call runs;
 * - read-only: only tools marked read-only are offered; they follow the auto-edit rule.
 */

export interface McpRunDeps extends MutationDeps {
  /** The user's setting: may `auto-edit` run this tool without asking? */
  isAllowed(server: string, tool: string): boolean
}

export interface McpRunOutcome {
  result: ToolResult
  attachments?: ToolAttachment[]
  /** The call reached the server (a refused one changed nothing). */
  executed: boolean
}

export async function runMcpCall(
  deps: McpRunDeps,
  tool: McpTool,
  callId: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<McpRunOutcome> {
  const { server, tool: name, readOnly, description } = tool.mcp
  const policy = deps.policy()
  if (policy === 'read-only' && !readOnly)
    return {
      executed: false,
      result: {
        ok: false,
        error: `${tool.name} is not available: this session is read-only and the server does not mark this tool read-only.`,
      },
    }
  const sessionKey = `mcp\0${tool.name}`
  const mustAsk =
    policy === 'ask'
      ? !deps.allowedCommands.has(sessionKey)
      : policy !== 'full-auto' && !deps.isAllowed(server, name) && !deps.allowedCommands.has(sessionKey)
  if (mustAsk) {
    deps.record({
      type: 'approval.requested',
      callId,
      tool: tool.name,
      mcp: { server, tool: name, args: input, ...(description ? { description } : {}) },
    })
    const summary = describeCall(server, name, input)
    const answer = await deps.approver.requestApproval(
      {
        kind: 'action',
        sessionId: deps.sessionId,
        callId,
        tool: tool.name,
        // The server's description stays out of the prompt: it is the server's text, not ours.
        plan: { summary, verdict: 'ask', data: input },
      },
      signal,
    )
    if (answer.decision !== 'accept' && answer.decision !== 'always') {
      const reason = answer.decision === 'reject' || answer.decision === 'partial' ? answer.reason : undefined
      deps.record({ type: 'approval.resolved', callId, decision: 'reject', by: 'user', reason })
      return {
        executed: false,
        result: {
          ok: false,
          error: `The user rejected calling ${tool.name}.${reason ? ` Their reason: ${reason}` : ' No reason was given; ask or try a different approach.'}`,
        },
      }
    }
    if (answer.decision === 'always') deps.allowedCommands.add(sessionKey)
    deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'user' })
  }
  try {
    const converted = await tool.call(input, {
      signal,
      // Progress notifications go on the timeline as the call's output.
      onProgress: (p) =>
        deps.record({ type: 'tool.output', callId, stream: 'stdout', text: progressLine(p) }),
    })
    return {
      executed: true,
      result: converted.result,
      ...(converted.attachments.length > 0 ? { attachments: converted.attachments } : {}),
    }
  } catch (err) {
    if (signal.aborted)
      return {
        executed: true,
        result: { ok: false, error: `Cancelled: the user stopped the session while ${tool.name} ran.` },
      }
    return { executed: true, result: { ok: false, error: `${tool.name} failed: ${(err as Error).message}` } }
  }
}
