import type { RawCall } from '../types'

/*
 * Python-style calls as LFM2 and Gemma 3 write them: `read_file(path="a.ts")`, or a list
 * of them `[a(x=1), b()]`. Arguments are Python literals (strings in either quote,
 * True/None, dicts, lists, sets, tuples); only keyword arguments can be mapped to a
 * tool's parameters. Models often put an unescaped quote of the same kind inside a
 * string (`command='sed -n '1,5p' f'`), so a quote only closes a string if what follows
 * can continue the call; when that guess turns out wrong, the next closing quote is tried.
 */

export type PyCallsResult = { ok: true; calls: RawCall[]; end: number } | { ok: false; error: string }

class PyError extends Error {}

const NAME = /[A-Za-z_][\w.-]*/y

/** Calls starting at `start`: a `[...]` list of calls or one bare call. `end` is just past them. */
export function parsePyCalls(text: string, start: number): PyCallsResult {
  try {
    const p = new Parser(text)
    const r = p.callsAt(skipWs(text, start))
    if (!r) return { ok: false, error: p.lastError ?? 'no call could be read there' }
    return { ok: true, calls: r.calls, end: r.end }
  } catch (err) {
    return { ok: false, error: (err as Error).message }
  }
}

function skipWs(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i])) i++
  return i
}

interface Parsed<T> {
  value: T
  end: number
}

class Parser {
  /** Why the last reading failed, for the repair message. */
  lastError: string | undefined

  constructor(private readonly text: string) {}

  callsAt(i: number): { calls: RawCall[]; end: number } | undefined {
    if (this.text[i] !== '[') {
      const one = this.call(i)
      return one && { calls: [one.value], end: one.end }
    }
    return this.callList(i + 1, [])
  }

  /** The rest of a `[...]` list of calls; backtracks through `call`'s string guesses. */
  private callList(i: number, calls: RawCall[]): { calls: RawCall[]; end: number } | undefined {
    i = skipWs(this.text, i)
    if (this.text[i] === ']') return { calls, end: i + 1 }
    for (const c of this.callCandidates(i)) {
      let j = skipWs(this.text, c.end)
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
    const open = skipWs(this.text, i + name.length)
    if (this.text[open] !== '(') return
    for (const args of this.kwargs(open + 1, {})) {
      yield { value: { name, arguments: args.value }, end: args.end }
    }
  }

  private *kwargs(i: number, acc: Record<string, unknown>): Generator<Parsed<Record<string, unknown>>> {
    i = skipWs(this.text, i)
    if (this.text[i] === ')') {
      yield { value: acc, end: i + 1 }
      return
    }
    NAME.lastIndex = i
    const m = NAME.exec(this.text)
    const eq = m ? skipWs(this.text, i + m[0].length) : -1
    if (!m || this.text[eq] !== '=' || this.text[eq + 1] === '=') {
      this.lastError = 'arguments must be named, like read_file(path="src/a.ts")'
      return
    }
    const key = m[0]
    try {
      for (const v of this.valueCandidates(skipWs(this.text, eq + 1))) {
        let j = skipWs(this.text, v.end)
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
    i = skipWs(this.text, i)
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
      i = skipWs(this.text, i)
      if (this.text[i] === close) return { value: items, end: i + 1 }
      const v = this.value(i)
      items.push(v.value)
      i = skipWs(this.text, v.end)
      if (this.text[i] === ',') i++
      else if (this.text[i] !== close) throw new PyError(`expected "," or "${close}" at offset ${i}`)
    }
  }

  /** `{k: v}` becomes an object, `{a, b}` (a set) an array, since JSON has no sets. */
  private dictOrSet(i: number): Parsed<unknown> {
    const obj: Record<string, unknown> = {}
    const set: unknown[] = []
    for (;;) {
      i = skipWs(this.text, i)
      if (this.text[i] === '}') return { value: set.length > 0 ? set : obj, end: i + 1 }
      const k = this.value(i)
      i = skipWs(this.text, k.end)
      if (this.text[i] === ':') {
        const v = this.value(i + 1)
        obj[String(k.value)] = v.value
        i = skipWs(this.text, v.end)
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
    for (let j = i + delim.length; j < this.text.length; j++) {
      const c = this.text[j]
      if (c === '\\' && j + 1 < this.text.length) {
        out += unescape(this.text[j + 1])
        j++
        continue
      }
      if (this.text.startsWith(delim, j)) {
        const after = skipWs(this.text, j + delim.length)
        if (after >= this.text.length || /[,)\]}:]/.test(this.text[after])) {
          closed = true
          yield { value: out, end: j + delim.length }
        }
      }
      out += c
    }
    if (!closed) this.lastError = `the string opened at offset ${i} never ends`
  }
}

function unescape(c: string): string {
  switch (c) {
    case 'n':
      return '\n'
    case 't':
      return '\t'
    case 'r':
      return '\r'
    case '\\':
    case "'":
    case '"':
      return c
    default:
      // Python keeps an unknown escape as written (`'\,'` is backslash-comma).
      return '\\' + c
  }
}
