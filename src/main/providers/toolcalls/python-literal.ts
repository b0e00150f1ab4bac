import { skipSpace } from './json-scan'
import type { RawCall } from './types'
import { pushAll } from '../../../shared/arrays'

/*
 * Calls written as Python, for every family that writes them: Llama 3.2/4 and ToolACE
 * lists (`[read_file(path='a'), git_status()]`), LFM2 and Gemma 3's `tool_code`.
 * Keyword arguments only; values are Python literals (strings in either quote style,
 * triple quotes and Python escapes, numbers, True/False/None, lists, tuples, dicts,
 * sets). Nothing is evaluated. Models often put an unescaped quote of the same kind
 * inside a string (`command='sed -n '1,5p' f'`), so a quote only closes a string if
 * what follows can continue the call; when that guess turns out wrong, the next
 * closing quote is tried.
 */

/** On failure, `reached`: how far the reader looked, so a caller scanning for lists can skip what it saw. */
export type PyRead<T> = { ok: true; value: T; end: number } | { ok: false; error: string; reached: number }

export type PyCallsResult =
  { ok: true; calls: RawCall[]; end: number } | { ok: false; error: string; reached: number }

/** Guesses about where strings end, at most, per read: an answer full of quotes must stay cheap. */
const MAX_GUESSES = 2000

/** Thrown inside the parser and always caught by it; not an Error, so a failed read captures no stack. */
class PyError {
  constructor(readonly message: string) {}
}

const NAME = /[A-Za-z_][\w.-]*/y

/** Calls starting at `start`: a `[...]` list of calls or one bare call. `end` is just past them. */
export function parsePyCalls(text: string, start: number, limit = text.length): PyCallsResult {
  const p = new Parser(text, limit)
  try {
    const r = p.callsAt(skipSpace(text, start))
    if (!r) return { ok: false, error: p.lastError ?? 'no call could be read there', reached: p.reached }
    return { ok: true, calls: r.calls, end: r.end }
  } catch (err) {
    if (err instanceof PyError) return { ok: false, error: err.message, reached: p.reached }
    throw err
  }
}

/**
 * `name(k=v, …)` repeated, separated by commas, from `start`, as Llama's pythonic lists
 * are read: with `stop` (`]`), `start` is just inside the list and `end` is at the `]`.
 */
export function readPythonCalls(
  text: string,
  start: number,
  stop: ']' | undefined,
  limit = text.length,
): PyRead<RawCall[]> {
  const r = parsePyCalls(text, stop ? start - 1 : start, limit)
  if (!r.ok) return r
  if (!stop) {
    // One call read; more may follow after commas (`<|python_start|>a(), b()`).
    const calls = [...r.calls]
    let end = r.end
    for (;;) {
      const comma = skipSpace(text, end)
      if (text[comma] !== ',') break
      const next = parsePyCalls(text, comma + 1, limit)
      if (!next.ok || text[skipSpace(text, comma + 1)] === '[') break
      pushAll(calls, next.calls)
      end = next.end
    }
    return { ok: true, value: calls, end }
  }
  return { ok: true, value: r.calls, end: r.end - 1 }
}

interface Parsed<T> {
  value: T
  end: number
}

class Parser {
  /** Why the last reading failed, for the repair message. */
  lastError: string | undefined

  /** The furthest offset looked at. */
  reached = 0
  private guesses = 0

  /** `limit`: where the text ends for this read (the end of a block). */
  constructor(
    private readonly text: string,
    private readonly limit: number,
  ) {}

  callsAt(i: number): { calls: RawCall[]; end: number } | undefined {
    if (this.text[i] !== '[') {
      const one = this.call(i)
      return one && { calls: [one.value], end: one.end }
    }
    return this.callList(i + 1, [])
  }

  /** The rest of a `[...]` list of calls; backtracks through `call`'s string guesses. */
  private callList(i: number, calls: RawCall[]): { calls: RawCall[]; end: number } | undefined {
    i = skipSpace(this.text, i)
    if (this.text[i] === ']') return { calls, end: i + 1 }
    for (const c of this.callCandidates(i)) {
      let j = skipSpace(this.text, c.end)
      if (this.text[j] === ',') j++
      else if (this.text[j] !== ']') continue
      const rest = this.callList(j, [...calls, c.value])
      if (rest) return rest
    }
    return undefined
  }

  private call(i: number): Parsed<RawCall> | undefined {
    return this.callCandidates(i).next().value ?? undefined
  }

  /** Every way to read one call at `i`, shortest string guesses first. */
  private *callCandidates(i: number): Generator<Parsed<RawCall>> {
    NAME.lastIndex = i
    const m = NAME.exec(this.text)
    if (!m) return
    const name = m[0]
    const open = skipSpace(this.text, i + name.length)
    if (this.text[open] !== '(') return
    for (const args of this.kwargs(open + 1, {})) {
      yield { value: { name, arguments: args.value }, end: args.end }
    }
  }

  private *kwargs(i: number, acc: Record<string, unknown>): Generator<Parsed<Record<string, unknown>>> {
    i = skipSpace(this.text, i)
    if (this.text[i] === ')') {
      yield { value: acc, end: i + 1 }
      return
    }
    NAME.lastIndex = i
    const m = NAME.exec(this.text)
    const eq = m ? skipSpace(this.text, i + m[0].length) : -1
    if (!m || this.text[eq] !== '=' || this.text[eq + 1] === '=') {
      this.lastError = 'arguments must be named, like read_file(path="src/a.ts")'
      return
    }
    const key = m[0]
    try {
      for (const v of this.valueCandidates(skipSpace(this.text, eq + 1))) {
        let j = skipSpace(this.text, v.end)
        if (this.text[j] === ',') j++
        else if (this.text[j] !== ')') continue
        yield* this.kwargs(j, { ...acc, [key]: v.value })
      }
    } catch (err) {
      // A wrong guess about an earlier string's end can leave garbage here: let the caller try the next guess.
      if (!(err instanceof PyError)) throw err
      this.lastError = err.message
    }
  }

  /** A top-level argument value: strings may end at any plausible quote. */
  private *valueCandidates(i: number): Generator<Parsed<unknown>> {
    const q = this.text[i]
    if (q === '"' || q === "'") {
      yield* this.stringCandidates(i)
      return
    }
    yield this.value(i)
  }

  /** A nested value: strings take the first plausible closing quote. */
  private value(i: number): Parsed<unknown> {
    i = skipSpace(this.text, i)
    const c = this.text[i]
    if (c === '"' || c === "'") {
      const first = this.stringCandidates(i).next()
      if (first.done) throw new PyError(`a string at offset ${i} never ends`)
      return first.value
    }
    if (c === '[') return this.sequence(i + 1, ']')
    if (c === '(') return this.sequence(i + 1, ')')
    if (c === '{') return this.dictOrSet(i + 1)
    const lit = /(True|False|None|true|false|null)\b|-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/y
    lit.lastIndex = i
    const m = lit.exec(this.text)
    if (!m) throw new PyError(`cannot read a value at "${this.text.slice(i, i + 20)}"`)
    const word = m[1]
    const value =
      word === undefined
        ? Number(m[0])
        : word === 'True' || word === 'true'
          ? true
          : word === 'False' || word === 'false'
            ? false
            : null
    return { value, end: i + m[0].length }
  }

  private sequence(i: number, close: string): Parsed<unknown[]> {
    const items: unknown[] = []
    for (;;) {
      i = skipSpace(this.text, i)
      if (this.text[i] === close) return { value: items, end: i + 1 }
      const v = this.value(i)
      items.push(v.value)
      i = skipSpace(this.text, v.end)
      if (this.text[i] === ',') i++
      else if (this.text[i] !== close) throw new PyError(`expected "," or "${close}" at offset ${i}`)
    }
  }

  /** `{k: v}` becomes an object, `{a, b}` (a set) an array, since JSON has no sets. */
  private dictOrSet(i: number): Parsed<unknown> {
    const obj: Record<string, unknown> = {}
    const set: unknown[] = []
    for (;;) {
      i = skipSpace(this.text, i)
      if (this.text[i] === '}') return { value: set.length > 0 ? set : obj, end: i + 1 }
      const k = this.value(i)
      i = skipSpace(this.text, k.end)
      if (this.text[i] === ':') {
        const v = this.value(i + 1)
        obj[String(k.value)] = v.value
        i = skipSpace(this.text, v.end)
      } else set.push(k.value)
      if (this.text[i] === ',') i++
      else if (this.text[i] !== '}') throw new PyError(`expected "," or "}" at offset ${i}`)
    }
  }

  /** Each plausible end of the string opening at `i`: a matching quote followed by `, ) ] } :` or the end. */
  private *stringCandidates(i: number): Generator<Parsed<string>> {
    const q = this.text[i]
    const triple = this.text.startsWith(q.repeat(3), i)
    const delim = triple ? q.repeat(3) : q
    let out = ''
    let closed = false
    for (let j = i + delim.length; j < this.limit; j++) {
      this.reached = Math.max(this.reached, j)
      const c = this.text[j]
      if (c === '\\' && j + 1 < this.limit) {
        const e = escapeAt(this.text, j + 1)
        out += e.value
        j = e.end - 1
        continue
      }
      if (this.text.startsWith(delim, j)) {
        const after = skipSpace(this.text, j + delim.length)
        if (after >= this.limit || /[,)\]}:]/.test(this.text[after])) {
          if (++this.guesses > MAX_GUESSES) throw new PyError('too many quotes to tell where strings end')
          closed = true
          yield { value: out, end: j + delim.length }
        }
      }
      out += c
    }
    if (!closed) this.lastError = `the string opened at offset ${i} never ends`
  }
}

/** One-letter escapes and what Python reads for them (a backslash-newline continues the line). */
const SIMPLE_ESCAPES = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['0', '\0'],
  ['\n', ''],
])

/** The escape whose letter is at `i` (just past the backslash), as Python reads it. */
function escapeAt(text: string, i: number): { value: string; end: number } {
  const e = text[i]
  const simple = SIMPLE_ESCAPES.get(e)
  if (simple !== undefined) return { value: simple, end: i + 1 }
  if (e === 'x' || e === 'u') {
    const len = e === 'x' ? 2 : 4
    const hex = text.slice(i + 1, i + 1 + len)
    if (/^[0-9a-fA-F]+$/.test(hex) && hex.length === len)
      return { value: String.fromCharCode(parseInt(hex, 16)), end: i + 1 + len }
  }
  if (e === '\\' || e === "'" || e === '"') return { value: e, end: i + 1 }
  // Python keeps an unknown escape as written (`'\d'` in a regex is backslash-d).
  return { value: '\\' + e, end: i + 1 }
}
