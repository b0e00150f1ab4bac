import { isObject } from '../json-scan'
import type { FamilyResult, RawCall } from '../types'

/*
 * Small helpers shared by the special-token families (deepseek, glm, kimi, minimax,
 * harmony, command-r, granite). JSON itself is read with `../json-scan`.
 */

/** One call read from its body, or why it cannot be read. */
export type Piece = { call: RawCall } | { problem: string }

/**
 * A block of call bodies as one span. A block with no body (`empty` says so) or with
 * one unreadable call is one broken span: never run half a batch.
 */
export function addBlock(
  out: FamilyResult,
  start: number,
  end: number,
  bodies: string[],
  read: (body: string) => Piece,
  empty: string,
): void {
  if (bodies.length === 0) {
    out.broken.push({ start, end, problem: empty })
    return
  }
  const pieces = bodies.map(read)
  const problem = pieces.find((p): p is { problem: string } => 'problem' in p)
  if (problem) out.broken.push({ start, end, problem: problem.problem })
  else out.spans.push({ start, end, calls: pieces.map((p) => (p as { call: RawCall }).call), kind: 'markup' })
}

/** A short quote of the text for a repair message. */
export function quote(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

/** Value of `name="…"` (or single quotes, or bare) in a tag's attribute text. */
export function attribute(attrs: string, name: string): string | undefined {
  const m = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`).exec(attrs)
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined
}

/**
 * Reads one `{"name": …, "arguments": …}` object as several families write it
 * (Granite, MiniMax-M1). Arguments may be an object or a JSON string; a missing
 * `arguments` means a call without arguments.
 */
export function namedCall(v: unknown): { name: string; arguments: unknown } | string {
  if (!isObject(v)) return 'an entry is not a JSON object'
  const name = v.name
  if (typeof name !== 'string' || name.trim() === '') return 'an entry has no "name"'
  const args = v.arguments ?? v.parameters ?? {}
  if (!isObject(args) && typeof args !== 'string') return `"arguments" of ${name} is not an object`
  return { name: name.trim(), arguments: args }
}
