/**
 * Text from the model, from tools and from the project (paths, command output, MCP servers) is
 * shown in terminals: the human CLI output, `sessions show|replay`, the approval prompt and the
 * Markdown export. A terminal acts on control characters it receives, so such text must reach it
 * inert. This module is the one owner of that rule; every printer goes through it, and `--json`
 * output, which keeps the exact text, does not.
 *
 * What a terminal would act on, and so what is shown escaped:
 * - C0 controls but tab and line feed (ESC starts CSI/OSC/DCS sequences: cursor moves, SGR 8 hidden
 *   text, OSC 52 clipboard writes, OSC 8 links, title changes; BEL ends OSC; BS and a lone CR
 *   overwrite what was printed), and DEL.
 *   Sources: HD Moore, "Terminal Emulator Security Issues" (2003); CVE-2022-45063 (xterm: OSC 50
 *   font ops to code execution) from CyberArk's "Don't Trust This Title" (2022); CVE-2021-25743
 *   (kubectl printed escape sequences from objects); CVE-2024-52005 (git relayed ANSI sequences
 *   from a remote's sideband); Johann Rehberger, "Terminal DiLLMa: LLM-powered apps can hijack
 *   your terminal via prompt injection" (2024); Trail of Bits, "Deceiving users with ANSI
 *   terminal codes in MCP" (2025).
 * - C1 controls U+0080–U+009F (U+009B is a one-character CSI, U+009D an OSC in terminals that take
 *   8-bit controls).
 * - Bidirectional overrides, embeddings, isolates and marks (U+202A–U+202E, U+2066–U+2069,
 *   U+200E, U+200F, U+061C): they reorder what is shown ("Trojan Source", CVE-2021-42574).
 * - Unicode tag characters U+E0000–U+E007F: invisible text that models read ("ASCII smuggling",
 *   Rehberger 2024).
 *
 * A CR right before a LF is kept (it cannot hide anything); every other escaped character is shown
 * as `\xHH` (up to U+00FF) or `\u{HHHH}`, so the reader sees that it was there.
 */

const ACTIVE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]|\r(?!\n)/gu

function shown(ch: string): string {
  const code = ch.codePointAt(0) ?? 0
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u{${code.toString(16).padStart(4, '0')}}`
}

/** `text` with every character a terminal would act on replaced by a visible escape. */
export function inertText(text: string): string {
  ACTIVE.lastIndex = 0
  return ACTIVE.test(text) ? text.replace(ACTIVE, shown) : text
}

/**
 * `text` with every character a terminal would act on removed, line ends made `\n`: for views that
 * show untrusted text as plain text (React escapes markup but not these) where an escape would be
 * noise, such as a server's name or a tool's description in the app.
 */
export function strippedText(text: string): string {
  ACTIVE.lastIndex = 0
  return text.replace(/\r\n?/g, '\n').replace(ACTIVE, '')
}

/**
 * A copy of a JSON-like value (an event, a session row, a finding) with every string, keys
 * included, passed through {@link inertText}. Printers apply it to what they print, so a field
 * added later is covered without a second rule.
 */
export function inertDeep<T>(value: T): T {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the copy has T's shape: strings become strings, arrays and plain objects are rebuilt with the same keys' values (keys made inert are still strings), anything else is returned as is
  return inertCopy(value) as T
}

function inertCopy(value: unknown): unknown {
  if (typeof value === 'string') return inertText(value)
  if (Array.isArray(value)) return value.map(inertCopy)
  if (value === null || typeof value !== 'object') return value
  if (Object.getPrototypeOf(value) !== Object.prototype) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[inertText(k)] = inertCopy(v)
  return out
}
