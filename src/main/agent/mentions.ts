import type { EventDraft, ToolCall } from '../../shared/protocol'
import { withAttachedResources } from '../providers/attached-resources'
import { uniqueCallIds } from '../providers/transcript'
import type { ToolResult } from '../tools/types'

/*
 * A user message that names MCP resources (`@SERVER:URI`, docs/mcp.md#resources): the message is
 * recorded with them, then each is read as a call of its server's read_resource tool — through
 * the tool runner, so the policy, the approval card, the timeline and replay treat it as the
 * model's own read — and the contents are attached to the message the model reads.
 */

/** A resource the user's message names, with the tool that reads it (`mcp__SERVER__read_resource`). */
export interface MentionedResource {
  server: string
  uri: string
  tool: string
}

export interface MentionDeps {
  record(draft: EventDraft): unknown
  runTool(call: ToolCall, signal: AbortSignal): Promise<ToolResult>
  /** The session's call ids: the reads get ids no call used. */
  callIds: Set<string>
}

/** Records the message and reads its resources; returns the text the model gets. */
export async function userMessageWithResources(
  deps: MentionDeps,
  text: string,
  resources: readonly MentionedResource[],
  signal: AbortSignal,
): Promise<string> {
  const calls = uniqueCallIds(
    resources.map((r, i) => ({
      id: `mention_${i + 1}`,
      name: r.tool,
      arguments: JSON.stringify({ uri: r.uri }),
    })),
    deps.callIds,
  )
  deps.record({
    type: 'user.message',
    text,
    resources: resources.map((r, i) => ({ server: r.server, uri: r.uri, callId: calls[i].id })),
  })
  const reads = []
  for (const [i, r] of resources.entries()) {
    // A stop leaves the rest unread; the message says so (as the rebuilt transcript does).
    const result = signal.aborted ? undefined : await deps.runTool(calls[i], signal)
    reads.push({ server: r.server, uri: r.uri, ...(result ? { result } : {}) })
  }
  return withAttachedResources(text, reads)
}
