/*
 * What the MCP approval card shows of a call. The arguments come from the model and the description
 * from the server: both are shown as plain text, never as markup, and capped so a huge value cannot
 * freeze the panel.
 */

/** Past this, the arguments are cut (the whole value still goes to the server). */
export const MCP_ARGS_SHOWN_CHARS = 20_000
/** The host caps descriptions at 1,024 characters (docs/mcp.md); the card holds to the same. */
export const MCP_DESCRIPTION_SHOWN_CHARS = 1_024

export interface ShownText {
  text: string
  /** Characters left out at the end (0 when shown whole). */
  hidden: number
}

function capped(text: string, max: number): ShownText {
  if (text.length <= max) return { text, hidden: 0 }
  // Do not cut a surrogate pair in two.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max
  return { text: text.slice(0, end), hidden: text.length - end }
}

/** The arguments as indented JSON; a value JSON cannot write (undefined) shows as `{}`. */
export function mcpArgsText(args: unknown, max = MCP_ARGS_SHOWN_CHARS): ShownText {
  let json: string | undefined
  try {
    json = JSON.stringify(args, null, 2)
  } catch {
    json = String(args)
  }
  return capped(json ?? '{}', max)
}

/** The server's description with its whitespace collapsed, or null when it gave none. */
export function mcpDescriptionText(
  description: string | undefined,
  max = MCP_DESCRIPTION_SHOWN_CHARS,
): ShownText | null {
  const text = description?.replace(/\s+/g, ' ').trim() ?? ''
  return text === '' ? null : capped(text, max)
}
