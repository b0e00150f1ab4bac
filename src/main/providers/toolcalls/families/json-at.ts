import type { FamilyResult, RawCall } from '../types'
import {
  balancedEnd,
  callsFromValue,
  forwardFinder,
  openerBalance,
  parseJson,
  skipSpace,
  type Balance,
} from '../json-scan'

/*
 * The JSON value that follows a family's marker (`<TOOLCALL>`, `functools`, `<|plugin|>`…),
 * read as calls. Several batch-3 families differ only in their markers, so they share it.
 */

export type JsonAt = { ok: true; value: unknown; end: number } | { ok: false; error: string; end: number }

/** The balanced JSON object or array starting at the first non-space from `from`. */
export function jsonAt(text: string, from: number, balance: Balance = balancedEnd): JsonAt {
  const i = skipSpace(text, from)
  if (text[i] !== '{' && text[i] !== '[') return { ok: false, error: 'no JSON follows', end: i }
  const end = balance(text, i)
  if (end < 0) return { ok: false, error: 'the JSON never closes', end: text.length }
  const parsed = parseJson(text.slice(i, end))
  return parsed.ok ? { ok: true, value: parsed.value, end } : { ok: false, error: parsed.error, end }
}

export type CallsAt = { ok: true; calls: RawCall[]; end: number } | { ok: false; error: string; end: number }

/** Calls (`{name, arguments}` or a list of them) in the JSON at `from`. */
export function callsAt(text: string, from: number, balance: Balance = balancedEnd): CallsAt {
  const json = jsonAt(text, from, balance)
  if (!json.ok) return json
  // An empty list means the model called nothing; the family records no span for it.
  if (Array.isArray(json.value) && json.value.length === 0) return { ok: true, calls: [], end: json.end }
  const calls = callsFromValue(json.value)
  if (!calls)
    return { ok: false, error: 'the JSON is not a list of {"name", "arguments"} calls', end: json.end }
  return { ok: true, calls, end: json.end }
}

/** Offset just past `marker` if it follows `from` (after optional whitespace), else `from`. */
export function skipMarker(text: string, from: number, marker: string): number {
  const i = skipSpace(text, from)
  return text.startsWith(marker, i) ? i + marker.length : from
}

/** Every index where `marker` occurs. */
export function indexesOf(text: string, marker: string): number[] {
  const out: number[] = []
  for (let i = text.indexOf(marker); i >= 0; i = text.indexOf(marker, i + marker.length)) out.push(i)
  return out
}

/**
 * Every `open … close` block whose body `read` turns into calls: a block it reads is a
 * markup span (through `close` when that follows), one it cannot read is broken up to
 * `close` (or the end). `what` names the body in the repair message ("the JSON").
 */
export function markerBlocks(
  text: string,
  { open, close, what }: { open: string; close: string; what: string },
  read: (from: number, balance: Balance) => CallsAt,
): FamilyResult {
  const result: FamilyResult = { spans: [], broken: [] }
  const balance = openerBalance(text, open)
  const closeAfter = forwardFinder(text, close)
  for (const start of indexesOf(text, open)) {
    const r = read(start + open.length, balance)
    if (r.ok) {
      if (r.calls.length > 0)
        result.spans.push({ start, end: skipMarker(text, r.end, close), calls: r.calls, kind: 'markup' })
      continue
    }
    const at = closeAfter(start)
    const end = at < 0 ? text.length : at + close.length
    result.broken.push({ start, end, problem: `${what} after ${open} does not parse (${r.error})` })
  }
  return result
}
