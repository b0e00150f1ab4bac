import { isRecord as isObject } from '../../../shared/records'
import type { RawCall } from './types'
import { pushAll } from '../../../shared/arrays'
import { errorMessage } from '../../../shared/errors'

/*
 * Small JSON helpers shared by the families that carry calls as JSON (Hermes, Llama,
 * Mistral, bare JSON). Families import them; none of them decide whether a call is
 * real — that is `../index.ts`'s job.
 */

const [OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, QUOTE, BACKSLASH] = [...'{}[]"\\'].map((c) =>
  c.charCodeAt(0),
)

/**
 * End (exclusive) of the balanced object/array starting at `start`, string-aware; -1 if
 * it does not close before `limit` (the end of the text by default).
 */
export function balancedEnd(text: string, start: number, limit = text.length): number {
  const open = text.charCodeAt(start)
  if (open !== OPEN_BRACE && open !== OPEN_BRACKET) return -1
  // Char codes, not one-character strings: this loop runs over whole answers.
  let depth = 0
  let inString = false
  for (let i = start; i < limit; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}

export type Balance = (text: string, start: number) => number

/**
 * `balancedEnd` with a budget of failures: an unbalanced `{` scans to the end of the
 * text, so an answer full of them (a cut-off dump, a broken template) would cost a scan
 * per brace. After `max` failures every further scan gives up at once.
 */
export function budgetedBalance(max = 32): Balance {
  let failures = 0
  return (text, start) => {
    if (failures >= max) return -1
    const end = balancedEnd(text, start)
    if (end < 0) failures++
    return end
  }
}

/**
 * A balance for a family whose blocks start with `opener`: a block that is still open
 * at the next opener is first looked for only up to it, so an answer made of unclosed
 * openers costs one pass, not one pass per opener. Only when that fails is the rest of
 * the text scanned (JSON may quote the opener), within `budgetedBalance`'s budget.
 */
export function openerBalance(text: string, opener: string, max = 8): Balance {
  const next = forwardFinder(text, opener)
  const full = budgetedBalance(max)
  return (t, start) => {
    const limit = next(start + 1)
    if (limit >= 0) {
      const end = balancedEnd(t, start, limit)
      if (end >= 0) return end
    }
    return full(t, start)
  }
}

export type JsonParse = { ok: true; value: unknown } | { ok: false; error: string }

export function parseJson(text: string): JsonParse {
  try {
    const value: unknown = JSON.parse(text)
    return { ok: true, value }
  } catch (err) {
    return { ok: false, error: errorMessage(err) }
  }
}

/**
 * JSON as models write it: also with raw newlines and tabs inside strings (a file's
 * content written out as is), which JSON forbids but whose meaning is plain.
 */
export function parseJsonLoose(text: string): JsonParse {
  const strict = parseJson(text)
  if (strict.ok) return strict
  const escaped = escapeControlCharsInStrings(text)
  if (escaped === text) return strict
  const loose = parseJson(escaped)
  return loose.ok ? loose : strict
}

function escapeControlCharsInStrings(text: string): string {
  let out = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString && c === '\\') {
      out += c + (text[i + 1] ?? '')
      i++
      continue
    }
    if (c === '"') inString = !inString
    if (inString && c === '\n') out += '\\n'
    else if (inString && c === '\r') out += '\\r'
    else if (inString && c === '\t') out += '\\t'
    else out += c
  }
  return out
}

/** Keys a call object may carry besides its name and arguments (ids, indexes, a type tag). */
const CALL_KEYS = new Set([
  'name',
  'arguments',
  'parameters',
  'args',
  'type',
  'id',
  'index',
  'call_id',
  'function',
])

/**
 * One call from a parsed JSON value: `{name, arguments}` in any key order, Llama's
 * `parameters`, `{type:"function", function:{…}}` and `{function:{…}}`. A tool
 * definition (a `description`, or a JSON Schema as its parameters) is not a call.
 */
export function callFromObject(value: unknown, opts: CallShape = {}): RawCall | undefined {
  if (!isObject(value)) return undefined
  let obj = value
  if (isObject(obj.function) && obj.name === undefined) obj = obj.function
  if (typeof obj.name !== 'string' || obj.name.trim() === '') return undefined
  if (Object.keys(obj).some((k) => !CALL_KEYS.has(k))) return undefined
  const args = obj.arguments ?? obj.parameters ?? obj.args
  if (opts.requireArguments && args === undefined) return undefined
  if (isObject(args) && args.type === 'object' && isObject(args.properties)) return undefined
  return { name: obj.name, arguments: args ?? {} }
}

export interface CallShape {
  /**
   * Unmarked JSON must carry its arguments key to be a call (as vLLM's Llama parser
   * asks): `{"name": "my-app"}` in a package.json is not one.
   */
  requireArguments?: boolean
}

/** Calls from a parsed value: one call, or an array whose every element is a call. */
export function callsFromValue(value: unknown, opts: CallShape = {}): RawCall[] | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined
    const calls = value.map((v) => callFromObject(v, opts))
    return calls.every((c) => c !== undefined) ? (calls as RawCall[]) : undefined
  }
  const call = callFromObject(value, opts)
  return call ? [call] : undefined
}

export interface JsonRun {
  start: number
  end: number
  calls: RawCall[]
}

/**
 * JSON values back to back from `start` (separated by whitespace, `,` or `;`), as long
 * as each one is a call or a list of calls. Stops at the first thing that is not.
 */
export function callRun(
  text: string,
  start: number,
  opts: CallShape = {},
  balance: Balance = balancedEnd,
): JsonRun | undefined {
  const calls: RawCall[] = []
  let i = start
  let end = start
  for (;;) {
    while (i < text.length && /[\s,;]/.test(text[i])) i++
    if (text[i] !== '{' && text[i] !== '[') break
    const close = balance(text, i)
    if (close < 0) break
    const parsed = parseJsonLoose(text.slice(i, close))
    const found = parsed.ok ? callsFromValue(parsed.value, opts) : undefined
    if (!found) break
    pushAll(calls, found)
    end = close
    i = close
  }
  return calls.length > 0 ? { start, end, calls } : undefined
}

/**
 * `text.indexOf(needle, from)` for `from` that only grows: the last answer is reused
 * while it is still ahead, so a text with no (or few) needles is searched once, not
 * once per step.
 */
export function forwardFinder(text: string, needle: string): (from: number) => number {
  let found = -2
  let searchedFrom = Infinity
  return (from) => {
    if (found === -1 && from >= searchedFrom) return -1
    if (found >= from && from >= searchedFrom) return found
    searchedFrom = from
    found = text.indexOf(needle, from)
    return found
  }
}

/** `forwardFinder` for a pattern: the first match at or after `from`, for `from` that only grows. */
export function forwardSearch(text: string, re: RegExp): (from: number) => RegExpExecArray | null {
  const g = new RegExp(re.source, re.flags.replace(/[gy]/g, '') + 'g')
  let found: RegExpExecArray | null | undefined
  let searchedFrom = Infinity
  return (from) => {
    if (found === null && from >= searchedFrom) return null
    if (found && found.index >= from && from >= searchedFrom) return found
    searchedFrom = from
    g.lastIndex = from
    found = g.exec(text)
    return found
  }
}

const sticky = new WeakMap<RegExp, RegExp>()

/**
 * `re` matched exactly at `pos` (a sticky copy, cached), without slicing the text:
 * families step through long answers, and slicing at every step would be quadratic.
 */
export function matchAt(re: RegExp, text: string, pos: number): RegExpExecArray | null {
  let s = sticky.get(re)
  if (!s) {
    s = new RegExp(re.source, re.flags.replace(/[gy]/g, '') + 'y')
    sticky.set(re, s)
  }
  s.lastIndex = pos
  return s.exec(text)
}

/** Index just past the whitespace that starts at `i`. */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i])) i++
  return i
}

/** The parsers' name for the shared JSON-object guard. */
export { isObject }
