/**
 * Slash commands typed in the message box: `/name args`. Pure parsing and matching; the
 * commands themselves live in the palette's table (`palette/commands.ts`), which both read.
 */

export interface SlashCall {
  name: string
  arg: string
}

/**
 * `/word` (letters, digits, dashes) then a space or the end: a command. Anything else — a path
 * such as `/usr/bin is slow`, a leading space — is a message for the model.
 */
export function parseSlash(text: string): SlashCall | null {
  const m = /^\/([a-z][a-z0-9-]*)(?:\s+([\s\S]*))?$/i.exec(text.trimEnd())
  if (!m) return null
  return { name: m[1].toLowerCase(), arg: (m[2] ?? '').trim() }
}

/**
 * The query to complete while the caret is still in the first word of a `/…` message (null once
 * an argument is being typed, or for a message that is not a command).
 */
export function slashQuery(text: string, caret: number): string | null {
  const word = /^\/([a-z0-9_-]*)(?=\s|$)/i.exec(text)
  if (!word) return null
  // A negative caret: the list was closed (Esc).
  return caret >= 0 && caret <= word[0].length ? word[1].toLowerCase() : null
}

export interface SlashNamed {
  slash?: string
}

/** The commands whose slash name starts with `query`, then those that merely contain it. */
export function matchSlash<T extends SlashNamed>(commands: readonly T[], query: string): T[] {
  const q = query.toLowerCase()
  const named = commands.filter((c): c is T & { slash: string } => Boolean(c.slash))
  const starts = named.filter((c) => c.slash.startsWith(q))
  const contains = named.filter((c) => !c.slash.startsWith(q) && c.slash.includes(q))
  return [...starts, ...contains]
}
