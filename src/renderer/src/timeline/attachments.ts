import type { ToolAttachment } from '../../../shared/protocol'

/*
 * Images a tool returned (MCP results), as the details pane shows them: an <img> from a data: URL
 * (the CSP allows `img-src data:`), only for raster types a browser decodes safely, and only up to
 * a size, so one huge result cannot stall the pane.
 */

/** The host keeps images up to 4 MiB of base64 (docs/mcp.md); the pane holds to 4 MB decoded, for events from elsewhere. */
export const MAX_SHOWN_IMAGE_BYTES = 4_000_000

// No SVG: it is a document, not pixels, and a server's text has no business being one.
const SHOWN_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp'])

export type ShownImage =
  | { kind: 'image'; src: string; alt: string; bytes: number; mimeType: string }
  | { kind: 'note'; text: string; bytes: number; mimeType: string }

/** "312 B", "1.4 kB", "3.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} kB`
  return `${(n / 1_000_000).toFixed(1)} MB`
}

/** Bytes a base64 text decodes to. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, '')
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding)
}

/** How to show the `index`th of `count` images a tool returned; `from` names the tool. */
export function shownImage(
  attachment: ToolAttachment,
  index: number,
  count: number,
  from: string,
): ShownImage {
  const mimeType = attachment.mimeType.toLowerCase().split(';')[0].trim()
  const bytes = base64Bytes(attachment.data)
  const which = count > 1 ? `Image ${index + 1} of ${count}` : 'Image'
  if (!SHOWN_TYPES.has(mimeType))
    return {
      kind: 'note',
      text: `${which} (${mimeType || 'no type'}, ${formatBytes(bytes)}) is not shown: not a picture type the app displays.`,
      bytes,
      mimeType,
    }
  if (bytes > MAX_SHOWN_IMAGE_BYTES)
    return {
      kind: 'note',
      text: `${which} (${mimeType}, ${formatBytes(bytes)}) is not shown: larger than ${formatBytes(MAX_SHOWN_IMAGE_BYTES)}.`,
      bytes,
      mimeType,
    }
  if (!/^[A-Za-z0-9+/=\s]*$/.test(attachment.data))
    return {
      kind: 'note',
      text: `${which} (${mimeType}) is not shown: its data is not base64.`,
      bytes,
      mimeType,
    }
  return {
    kind: 'image',
    src: `data:${mimeType};base64,${attachment.data.replace(/\s+/g, '')}`,
    alt: `${which} returned by ${from} (${mimeType}, ${formatBytes(bytes)})`,
    bytes,
    mimeType,
  }
}
