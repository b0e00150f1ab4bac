import type { RawCall } from './types'

/*
 * A reader for calls written as Python (`[read_file(path='a'), git_status()]`): keyword
 * arguments only, values as Python literals — strings in either quote style with
 * escapes, numbers, True/False/None, lists, tuples and dicts. Nothing is evaluated.
 */

export type PyRead<T> = { ok: true; value: T; end: number } | { ok: false; error: string; at: number }

/**
 * Thrown inside the reader and always caught by it. Not an Error: capturing a stack per
 * failure made answers full of `[name(` (each one a failed read) slow.
 */
class PyError {
  constructor(
    readonly message: string,
    readonly at: number,
  ) {}
}

/** `name(k=v, …)` repeated, separated by commas, from `start`; stops before `stop` (e.g. `]`) or the end. */
export function readPythonCalls(text: string, start: number, stop: string | undefined): PyRead<RawCall[]> {
  const r = new Reader(text, start)
  try {
    const calls: RawCall[] = []
    for (;;) {
      r.space()
      if (stop && r.peek() === stop && calls.length > 0) break
      calls.push(r.call())
      r.space()
      if (r.peek() === ',') {
        r.pos++
        continue
      }
      break
    }
    return { ok: true, value: calls, end: r.pos }
  } catch (err) {
    if (err instanceof PyError) return { ok: false, error: err.message, at: err.at }
    throw err
  }
}

class Reader {
  constructor(
    readonly text: string,
    public pos: number,
  ) {}

  peek(): string {
    return this.text[this.pos] ?? ''
  }

  space(): void {
    while (/\s/.test(this.peek())) this.pos++
  }

  expect(c: string): void {
    this.space()
    if (this.peek() !== c) throw new PyError(`expected "${c}"`, this.pos)
    this.pos++
  }

  identifier(): string {
    this.space()
    const m = /^[A-Za-z_][\w.]*/.exec(this.text.slice(this.pos, this.pos + 200))
    if (!m) throw new PyError('expected a name', this.pos)
    this.pos += m[0].length
    return m[0]
  }

  call(): RawCall {
    const name = this.identifier()
    this.expect('(')
    const args: Record<string, unknown> = {}
    this.space()
    while (this.peek() !== ')') {
      const key = this.identifier()
      this.expect('=')
      args[key] = this.value()
      this.space()
      if (this.peek() === ',') this.pos++
      else if (this.peek() !== ')') throw new PyError(`expected "," or ")" after ${key}=…`, this.pos)
      this.space()
    }
    this.pos++
    return { name, arguments: args }
  }

  value(): unknown {
    this.space()
    const c = this.peek()
    if (c === "'" || c === '"') return this.string()
    if (c === '[') return this.sequence('[', ']')
    if (c === '(') return this.sequence('(', ')')
    if (c === '{') return this.dict()
    const word = /^(?:True|False|None|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(
      this.text.slice(this.pos, this.pos + 64),
    )
    if (!word) throw new PyError('expected a Python literal', this.pos)
    this.pos += word[0].length
    if (word[0] === 'True') return true
    if (word[0] === 'False') return false
    if (word[0] === 'None') return null
    const n = Number(word[0])
    if (!Number.isFinite(n)) throw new PyError('a number too large for JSON', this.pos)
    return n
  }

  sequence(open: string, close: string): unknown[] {
    this.expect(open)
    const items: unknown[] = []
    this.space()
    while (this.peek() !== close) {
      items.push(this.value())
      this.space()
      if (this.peek() === ',') this.pos++
      else if (this.peek() !== close) throw new PyError(`expected "," or "${close}"`, this.pos)
      this.space()
    }
    this.pos++
    return items
  }

  dict(): Record<string, unknown> {
    this.expect('{')
    const out: Record<string, unknown> = {}
    this.space()
    while (this.peek() !== '}') {
      const key = this.value()
      if (typeof key !== 'string' && typeof key !== 'number')
        throw new PyError('a dict key must be text', this.pos)
      this.expect(':')
      out[String(key)] = this.value()
      this.space()
      if (this.peek() === ',') this.pos++
      else if (this.peek() !== '}') throw new PyError('expected "," or "}"', this.pos)
      this.space()
    }
    this.pos++
    return out
  }

  string(): string {
    const quote = this.text.startsWith(this.peek().repeat(3), this.pos) ? this.peek().repeat(3) : this.peek()
    const start = this.pos
    this.pos += quote.length
    let out = ''
    for (;;) {
      if (this.pos >= this.text.length) throw new PyError('unterminated string', start)
      if (this.text.startsWith(quote, this.pos)) {
        this.pos += quote.length
        return out
      }
      const c = this.text[this.pos++]
      if (c === '\n' && quote.length === 1) throw new PyError('unterminated string', start)
      if (c !== '\\') {
        out += c
        continue
      }
      const e = this.text[this.pos++] ?? ''
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\n': '' }
      if (e in simple) out += simple[e]
      else if (e === 'x' || e === 'u') {
        const len = e === 'x' ? 2 : 4
        const hex = this.text.slice(this.pos, this.pos + len)
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) throw new PyError('a bad escape', this.pos)
        out += String.fromCharCode(parseInt(hex, 16))
        this.pos += len
      } else if (e === '\\' || e === "'" || e === '"') out += e
      else out += '\\' + e // as in Python, an unknown escape (a regex's \d) keeps its backslash
    }
  }
}
