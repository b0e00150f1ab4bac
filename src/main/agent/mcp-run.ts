import type { SubjectOf, ToolAttachment } from '../../shared/protocol'
import { askWhilePreparing, decideCall, reasonOf, type MutationDeps, type RunningCall } from './approve'
import type { ToolResult } from '../tools/types'
import { errorMessage } from '../../shared/errors'
import { isRecord } from '../../shared/records'
import { progressLine, type McpTool } from '../mcp/tools'

/*
 * How an MCP tool call runs (docs/mcp.md#approvals): agent/decide.ts decides, as for every tool.
 * MCP tools are actions: a server's `readOnlyHint` is a hint, never a permission.
 * - ask: every call asks, showing server, tool and arguments, unless an "always allow" rule names
 *   the tool (for the session or the project);
 * - auto-edit: tools the user allowed (per server or per tool, in settings) or a rule names run; others ask;
 * - full-auto: every call runs;
 * - read-only: only tools marked read-only are offered; they follow the auto-edit rule.
 */

export interface McpRunOutcome {
  result: ToolResult
  attachments?: ToolAttachment[]
  /** The call reached the server (a refused one changed nothing). */
  executed: boolean
}

export async function runMcpCall(
  deps: MutationDeps,
  tool: McpTool,
  call: RunningCall,
): Promise<McpRunOutcome> {
  const { callId, signal } = call
  // The tool's input schema takes only an object; anything else never reaches a server.
  if (!isRecord(call.input))
    return { executed: false, result: { ok: false, error: `${tool.name} takes a JSON object.` } }
  const input = call.input
  const { server, tool: name, readOnly, description, hints } = tool.mcp
  const subject: SubjectOf<'mcp'> = {
    kind: 'mcp',
    server,
    tool: name,
    args: input,
    ...(description ? { description } : {}),
    ...(readOnly ? { readOnly } : {}),
    ...(hints ? { hints } : {}),
  }
  const decision = decideCall(deps, callId, subject)
  if (decision.action === 'refuse')
    return {
      executed: false,
      result: {
        ok: false,
        error: `${tool.name} is not available: this session is read-only and the server does not mark this tool read-only.`,
      },
    }
  if (decision.action === 'ask') {
    const asked = { tool: tool.name, callId, signal, prepare: call.prepare }
    const answer = await askWhilePreparing(deps, asked, subject, decision.why)
    if (answer.decision !== 'accept' && answer.decision !== 'always') {
      const reason = reasonOf(answer)
      deps.record({ type: 'approval.resolved', callId, decision: 'reject', by: 'user', reason })
      return {
        executed: false,
        result: {
          ok: false,
          error: `The user rejected calling ${tool.name}.${reason ? ` Their reason: ${reason}` : ' No reason was given; ask or try a different approach.'}`,
        },
      }
    }
    if (answer.decision === 'accept')
      deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'user' })
  }
  await call.prepare?.()
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
    return { executed: true, result: { ok: false, error: `${tool.name} failed: ${errorMessage(err)}` } }
  }
}
