import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { forwardFinder } from '../json-scan'
import { parsePyCalls } from '../python-literal'
import { pushAll } from '../../../../shared/arrays'
import { errorMessage } from '../../../../shared/errors'

/*
 * Google's Gemma family writes calls three ways:
 * - Gemma 3 (prompted): Python calls in a ```tool_code fence, often wrapped in
 *   `print(default_api.NAME(...))`;
 * - FunctionGemma: `<start_function_call>call:NAME{k:<escape>v<escape>}<end_function_call>`;
 * - Gemma 4: `<|tool_call>call:NAME{k:<|"|>v<|"|>}<tool_call|>`.
 * The last two share one argument syntax: bare keys, and strings between a special
 * quote token taken verbatim (no escapes), or JSON-quoted. Gemma 4 also slips: it
 * closes with `<turn|>`, writes `<|tool_call>:call:`, `<call>NAME{`, drops the opening
 * token (a bare `call:NAME{` on its own line), or stops before the closing token.
 */

const STRING_QUOTES = ['<|"|>', '<escape>']

const OPEN =
  /<\|tool_call>:?\s*call:|<start_function_call>\s*call:|<call>|(?<=^|\n|<channel\|>)[ \t]*call:(?=[\w.-]+\{)/g
const CLOSES = ['<tool_call|>', '<end_function_call>', '<turn|>']
const NAME = /[A-Za-z_][\w.-]*/y
const FENCE = /```tool_code[ \t]*\n([\s\S]*?)(?:```|$)/g

export const gemma: ToolCallFamily = {
  id: 'gemma',
  models: 'Gemma 3 (tool_code), FunctionGemma, Gemma 4',
  detect: (text) =>
    text.includes('```tool_code') ||
    text.includes('<|tool_call>') ||
    text.includes('<start_function_call>') ||
    text.includes('<call>') ||
    /(^|\n|<channel\|>)[ \t]*call:[\w.-]+\{/.test(text),
  parse,
  example: '<|tool_call>call:read_file{path:<|"|>src/main.ts<|"|>}<tool_call|>',
}

/*
 * Gemma 4's thinking channel (`<|channel>thought…<channel|>`) is blanked by ../reasoning.ts
 * before any family reads the text, so no call considered there ever runs.
 */
function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  const scan: Scan = {
    text,
    length: text.length,
    closes: CLOSES.map((c) => forwardFinder(text, c)),
    quote: forwardFinder(text, '<|"|>'),
    fullRetries: 8,
  }
  const opens = [...text.matchAll(OPEN)]
  opens.forEach((m, i) => {
    const limit = i + 1 < opens.length ? opens[i + 1].index : text.length
    // A bare `call:` may follow blanked reasoning on its line: the span starts at `call:` itself.
    const lead = m[0].length - m[0].trimStart().length
    readBraceCall(scan, { start: m.index + lead, marker: m[0].slice(lead), limit }, out)
  })
  for (const m of text.matchAll(FENCE)) readToolCode({ start: m.index, whole: m[0], body: m[1] }, out)
  return out
}

/** Per-parse state that keeps an answer full of unclosed calls linear. */
interface Scan {
  text: string
  length: number
  closes: Array<(from: number) => number>
  quote: (from: number) => number
  /** Calls that did not end before the next opener, read again over the whole text (a string may quote an opener). */
  fullRetries: number
}

/** One `call:NAME{…}` starting with the marker `marker` at `start`, read no further than `limit` (the next opener). */
function readBraceCall(
  scan: Scan,
  { start, marker, limit }: { start: number; marker: string; limit: number },
  { spans, broken }: FamilyResult,
): void {
  const text = scan.text
  const nameAt = start + marker.length
  NAME.lastIndex = nameAt
  const name = NAME.exec(text)?.[0]
  const braceAt = name ? nameAt + name.length : -1
  const closeAfter = (from: number): number => {
    const close = CLOSES.find((c) => text.startsWith(c, from))
    return close ? from + close.length : from
  }
  if (!name || text[braceAt] !== '{') {
    const end = nextClose(scan, nameAt)
    broken.push({ start, end, problem: `the call after ${marker.trim()} has no NAME{…}` })
    return
  }
  try {
    let args
    try {
      args = new BraceArgs(text, limit).object(braceAt)
    } catch (err) {
      if (limit >= text.length || scan.fullRetries <= 0) throw err
      scan.fullRetries--
      args = new BraceArgs(text, text.length).object(braceAt)
    }
    // A special token marks an act; a bare `call:` line without one is treated like plain JSON.
    const quoteAt = scan.quote(start)
    const marked = marker.trim() !== 'call:' || (quoteAt >= 0 && quoteAt < args.end)
    spans.push({
      start,
      end: closeAfter(args.end),
      calls: [{ name, arguments: args.value }],
      kind: marked ? 'markup' : 'json',
    })
  } catch (err) {
    broken.push({
      start,
      end: nextClose(scan, braceAt),
      problem: `the arguments of ${name} do not parse (${errorMessage(err)})`,
    })
  }
}

function nextClose(scan: Scan, from: number): number {
  let best = Infinity
  scan.closes.forEach((next, k) => {
    const i = next(from)
    if (i >= 0 && i + CLOSES[k].length < best) best = i + CLOSES[k].length
  })
  return best === Infinity ? scan.length : best
}

/** A ```tool_code fence: one call per line, possibly `print(...)`-wrapped, or a `[…]` list. */
function readToolCode(
  { start, whole, body }: { start: number; whole: string; body: string },
  { spans, broken }: FamilyResult,
): void {
  const calls: RawCall[] = []
  for (const line of splitStatements(body)) {
    const unwrapped = unwrapPrint(line)
    const r = parsePyCalls(unwrapped, 0)
    if (!r.ok || unwrapped.slice(r.end).trim() !== '') {
      const why = r.ok ? 'text follows the call' : r.error
      broken.push({
        start,
        end: start + whole.length,
        problem: `the tool_code block does not hold a call (${why})`,
      })
      return
    }
    pushAll(calls, r.calls)
  }
  if (calls.length === 0) {
    broken.push({ start, end: start + whole.length, problem: 'the tool_code block holds no call' })
    return
  }
  spans.push({ start, end: start + whole.length, calls, kind: 'markup' })
}

/** Statements of a fence body: a call may span several lines, so split only where brackets balance. */
function splitStatements(body: string): string[] {
  const out: string[] = []
  let depth = 0
  let quote = ''
  let cur = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]
    cur += c
    if (quote) {
      if (c === '\\') cur += body[++i] ?? ''
      else if (c === quote) quote = ''
    } else if (c === '"' || c === "'") quote = c
    else if ('([{'.includes(c)) depth++
    else if (')]}'.includes(c)) depth--
    else if (c === '\n' && depth <= 0) {
      if (cur.trim()) out.push(cur.trim())
      cur = ''
    }
  }
  if (cur.trim()) out.push(cur.trim())
  return out
}

function unwrapPrint(stmt: string): string {
  const m = /^print\s*\(([\s\S]*)\)\s*;?$/.exec(stmt)
  return m ? m[1].trim() : stmt.replace(/;$/, '')
}

/** Gemma's argument syntax: `{k:v,…}` with bare keys, special-token or JSON strings, bare scalars. */
class BraceArgs {
  /** `limit`: where reading stops (the next call's opener), so unclosed calls are not read to the end each. */
  constructor(
    private readonly text: string,
    private readonly limit: number,
  ) {}

  object(i: number): { value: Record<string, unknown>; end: number } {
    const obj: Record<string, unknown> = {}
    i = this.ws(i + 1)
    if (this.text[i] === '}') return { value: obj, end: i + 1 }
    for (;;) {
      const key = this.key(this.ws(i))
      const v = this.value(this.ws(key.end + 1))
      obj[key.value] = v.value
      i = this.ws(v.end)
      if (this.text[i] === '}') return { value: obj, end: i + 1 }
      if (this.text[i] !== ',') throw new Error(`expected "," or "}" after ${key.value}`)
      i++
    }
  }

  private key(i: number): { value: string; end: number } {
    const quoted = this.quoted(i)
    if (quoted) {
      const colon = this.ws(quoted.end)
      if (this.text[colon] !== ':') throw new Error('a key is not followed by ":"')
      return { value: quoted.value, end: colon }
    }
    const colon = this.text.indexOf(':', i)
    const k = colon < 0 ? '' : this.text.slice(i, colon).trim()
    if (!/^[\w.-]+$/.test(k)) throw new Error(`cannot read a key at "${this.text.slice(i, i + 20)}"`)
    return { value: k, end: colon }
  }

  private value(i: number): { value: unknown; end: number } {
    const quoted = this.quoted(i)
    if (quoted) return quoted
    const c = this.text[i]
    if (c === '{') return this.object(i)
    if (c === '[') {
      const items: unknown[] = []
      i = this.ws(i + 1)
      if (this.text[i] === ']') return { value: items, end: i + 1 }
      for (;;) {
        const v = this.value(this.ws(i))
        items.push(v.value)
        i = this.ws(v.end)
        if (this.text[i] === ']') return { value: items, end: i + 1 }
        if (this.text[i] !== ',') throw new Error('expected "," or "]" in a list')
        i++
      }
    }
    let end = i
    while (end < this.limit && !',}]'.includes(this.text[end])) end++
    if (end >= this.limit) throw new Error('the arguments never close')
    const raw = this.text.slice(i, end).trim()
    if (/^(true|false|null)$/.test(raw)) return { value: JSON.parse(raw) as unknown, end }
    if (/^-?\d+(\.\d*)?([eE][+-]?\d+)?$/.test(raw)) return { value: Number(raw), end }
    return { value: raw, end }
  }

  /** A string between special quote tokens (verbatim) or a JSON string. */
  private quoted(i: number): { value: string; end: number } | undefined {
    for (const q of STRING_QUOTES) {
      if (!this.text.startsWith(q, i)) continue
      const close = this.text.indexOf(q, i + q.length)
      if (close < 0 || close >= this.limit) throw new Error(`a ${q} string never ends`)
      return { value: this.text.slice(i + q.length, close), end: close + q.length }
    }
    if (this.text[i] !== '"') return undefined
    for (let j = i + 1; j < this.limit; j++) {
      if (this.text[j] === '\\') j++
      else if (this.text[j] === '"') return { value: jsonString(this.text.slice(i, j + 1)), end: j + 1 }
    }
    throw new Error('a quoted string never ends')
  }

  private ws(i: number): number {
    while (i < this.limit && /\s/.test(this.text[i])) i++
    return i
  }
}

/** A JSON-quoted string literal (`"…"`, escapes allowed) read as its value. */
function jsonString(literal: string): string {
  const value: unknown = JSON.parse(literal)
  if (typeof value !== 'string') throw new Error(`${literal} is not a quoted string`)
  return value
}
