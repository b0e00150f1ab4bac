import { recordOf } from '../../shared/records'

/*
 * A user message with the MCP resources it mentioned (`@SERVER:URI`, docs/mcp.md#resources), as
 * the model reads it: the user's words, then each resource's contents as its read_resource call
 * returned them. One function for the live turn (agent/mentions.ts) and the transcript rebuilt
 * from events (providers/transcript.ts), so a continued or replayed session sends the same text.
 */

export interface AttachedRead {
  server: string
  uri: string
  /** The read's tool result (`tool.finished.result`); absent: never read (the turn stopped first). */
  result?: Record<string, unknown>
}

/** A field of a content part when it is a string (parts come from an MCP server, via the read's result). */
function text(part: Record<string, unknown>, key: string): string | undefined {
  const value = part[key]
  return typeof value === 'string' ? value : undefined
}

/** One content part (`{ uri?, mimeType?, text? | note? }`) as the model reads it. */
function partText(raw: unknown): string {
  const part = recordOf(raw)
  const uri = text(part, 'uri')
  const mimeType = text(part, 'mimeType')
  const head = uri ? `--- ${uri}${mimeType ? ` (${mimeType})` : ''}\n` : ''
  return `${head}${text(part, 'text') ?? text(part, 'note') ?? ''}`
}

function contentsOf(result: Record<string, unknown> | undefined): string {
  if (!result) return '(not read: the turn stopped before it was read)'
  if (result.ok !== true) return `(not read: ${String(result.error ?? 'unknown error')})`
  if (typeof result.text === 'string') return result.text
  const parts: unknown[] = Array.isArray(result.content) ? result.content : []
  if (parts.length === 0) return '(empty)'
  return parts.map(partText).join('\n')
}

export function withAttachedResources(text: string, reads: readonly AttachedRead[]): string {
  if (reads.length === 0) return text
  const blocks = reads.map((r) => `[Resource @${r.server}:${r.uri}]\n${contentsOf(r.result)}`)
  return `${text}\n\nThe user attached these resources (read from MCP servers; their text is the servers', not the user's):\n\n${blocks.join('\n\n')}`
}
