import type { ToolAttachment } from '../../shared/protocol'
import type { ToolResult } from '../tools/types'

/*
 * An MCP tool result → the JSON object the model reads, plus what only the app shows.
 * Text passes as text; an image stays for the app (tool.finished.attachments) and the
 * model gets a description, since the providers here send tool results as text only;
 * embedded resources pass their text (a binary one is described); resource links pass
 * their URI; `structuredContent` is passed on as `structured`.
 */

/** Largest image kept on the timeline (base64 bytes); a bigger one is described only. */
const MAX_ATTACHMENT_BASE64 = 4 * 1024 * 1024
/** Largest text of one embedded resource sent to the model (the model window caps the whole result too). */
const MAX_RESOURCE_TEXT = 100_000

export interface McpContent {
  type: string
  text?: string
  data?: string
  mimeType?: string
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string }
  uri?: string
  name?: string
  description?: string
}

export interface McpCallResult {
  content?: McpContent[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
  /** The pre-2025 result shape: `{ toolResult }`. */
  toolResult?: unknown
}

export interface ConvertedResult {
  result: ToolResult
  attachments: ToolAttachment[]
}

function sizeOfBase64(data: string): string {
  const bytes = Math.floor((data.length * 3) / 4)
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`
}

export function convertResult(raw: McpCallResult, server: string, tool: string): ConvertedResult {
  const attachments: ToolAttachment[] = []
  const parts: unknown[] = []
  const texts: string[] = []
  if (raw.toolResult !== undefined && raw.content === undefined)
    return { result: { ok: true, result: raw.toolResult }, attachments }
  for (const item of raw.content ?? []) {
    switch (item.type) {
      case 'text':
        texts.push(item.text ?? '')
        parts.push({ type: 'text', text: item.text ?? '' })
        break
      case 'image': {
        const data = item.data ?? ''
        const kept = data.length <= MAX_ATTACHMENT_BASE64
        if (kept) attachments.push({ kind: 'image', mimeType: item.mimeType ?? 'image/png', data })
        parts.push({
          type: 'image',
          mimeType: item.mimeType,
          note: `An image (${item.mimeType ?? 'unknown type'}, ${sizeOfBase64(data)}) ${kept ? 'is shown to the user in the app' : 'was too large to keep'}; you cannot see it. Refer to it as "the image ${tool} returned" if needed.`,
        })
        break
      }
      case 'audio':
        parts.push({
          type: 'audio',
          mimeType: item.mimeType,
          note: `Audio (${item.mimeType ?? 'unknown type'}, ${sizeOfBase64(item.data ?? '')}); you cannot hear it.`,
        })
        break
      case 'resource': {
        const r = item.resource
        if (!r) break
        if (typeof r.text === 'string') {
          const cut = r.text.length > MAX_RESOURCE_TEXT
          const text = cut
            ? `[TRUNCATED: showing first ${MAX_RESOURCE_TEXT} characters, ${r.text.length - MAX_RESOURCE_TEXT} more available]\n${r.text.slice(0, MAX_RESOURCE_TEXT)}`
            : r.text
          parts.push({ type: 'resource', uri: r.uri, mimeType: r.mimeType, text })
        } else {
          parts.push({
            type: 'resource',
            uri: r.uri,
            mimeType: r.mimeType,
            note: `Binary content (${sizeOfBase64(r.blob ?? '')}), not shown.`,
          })
        }
        break
      }
      case 'resource_link':
        parts.push({ type: 'resource_link', uri: item.uri, name: item.name, description: item.description })
        break
      default:
        parts.push({ type: item.type, note: 'Content of a kind Stepwise does not pass on.' })
    }
  }
  if (raw.isError) {
    const message = texts.join('\n').trim() || 'the tool reported an error without a message'
    return { result: { ok: false, error: `${server}/${tool} failed: ${message}` }, attachments }
  }
  const onlyText = parts.length === texts.length
  const result: Record<string, unknown> = onlyText ? { text: texts.join('\n') } : { content: parts }
  if (raw.structuredContent !== undefined) result.structured = raw.structuredContent
  return { result: { ok: true, ...result }, attachments }
}
