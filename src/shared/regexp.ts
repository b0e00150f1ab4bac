/** `text` with every character that has a meaning in a regular expression escaped: matched as written. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** One expression that matches any of `texts` as written (an alternation of the escaped texts). */
export function anyOfLiterals(texts: readonly string[], flags = ''): RegExp {
  return new RegExp(texts.map(escapeRegExp).join('|'), flags)
}
