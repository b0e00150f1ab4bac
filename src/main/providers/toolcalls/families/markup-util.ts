import { forwardFinder, isObject } from '../json-scan'
import type { FamilyResult, RawCall } from '../types'

/*
 * Small helpers shared by the special-token families (deepseek, glm, kimi, minimax,
 * harmony, command-r, granite, glimmer, step3, kimi-k3, minimax-m3, olmo3, plamo3).
 * JSON itself is read with `../json-scan`.
 */

/** One call read from its body, or why it cannot be read (`problem` is set exactly when there is no call). */
export type Piece = { call: RawCall; problem?: undefined } | { problem: string; call?: undefined }

/** Where a block lies in the answer. */
export interface Range {
  start: number
  end: number
}

/** How a family reads one call body, and the problem to report for a block with none. */
export interface BodyReader {
  read: (body: string) => Piece
  empty: string
}

/**
 * A block of call bodies as one span. A block with no body (`empty` says so) or with
 * one unreadable call is one broken span: never run half a batch.
 */
export function addBlock(
  out: FamilyResult,
  range: Range,
  bodies: string[],
  { read, empty }: BodyReader,
): void {
  addPieces(out, range, bodies.map(read), empty)
}

/** The calls of one block, already read, as one span; or its first problem (or `empty`) as one broken span. */
export function addPieces(out: FamilyResult, { start, end }: Range, pieces: Piece[], empty: string): void {
  if (pieces.length === 0) {
    out.broken.push({ start, end, problem: empty })
    return
  }
  const calls: RawCall[] = []
  for (const piece of pieces) {
    if (piece.problem !== undefined) {
      out.broken.push({ start, end, problem: piece.problem })
      return
    }
    calls.push(piece.call)
  }
  out.spans.push({ start, end, calls, kind: 'markup' })
}

/** A block read whole: its calls as one span, or why it cannot run as one broken span. */
export function addCalls(out: FamilyResult, start: number, end: number, read: RawCall[] | string): void {
  if (typeof read === 'string') out.broken.push({ start, end, problem: read })
  else out.spans.push({ start, end, calls: read, kind: 'markup' })
}

/**
 * A family of `open`…`close` blocks each read whole by `readBody`: its calls as one span,
 * or why not as a broken one; a block never closed is broken too.
 */
export function parseTagBlocks(
  text: string,
  open: string,
  close: string,
  readBody: (body: string) => RawCall[] | string,
): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (const b of tagBlocks(text, open, close)) {
    if (!b.closed) out.broken.push({ start: b.start, end: b.end, problem: `the ${open} block is not closed` })
    else addCalls(out, b.start, b.end, readBody(text.slice(b.bodyStart, b.bodyEnd)))
  }
  return out
}

/** Where one `open`…`close` block stands: its body lies between `bodyStart` and `bodyEnd`. */
export interface TagBlock {
  start: number
  bodyStart: number
  bodyEnd: number
  end: number
  closed: boolean
}

/**
 * Every block opened by `open` in `text`. A block never closed runs to the next one (or
 * the end): the model was cut off. The finders only move forward, so a long text with
 * many opens and no close is read once, not once per open.
 */
export function* tagBlocks(text: string, open: string, close: string): Generator<TagBlock> {
  const openAfter = forwardFinder(text, open)
  const closeAfter = forwardFinder(text, close)
  for (let at = openAfter(0); at >= 0; at = openAfter(at + 1)) {
    const bodyStart = at + open.length
    const closeAt = closeAfter(bodyStart)
    const next = openAfter(bodyStart)
    const closed = closeAt >= 0 && (next < 0 || closeAt < next)
    const bodyEnd = closed ? closeAt : next < 0 ? text.length : next
    yield { start: at, bodyStart, bodyEnd, end: closed ? closeAt + close.length : bodyEnd, closed }
  }
}

/** One `<NS:invoke …>` with its attributes, body and closing tag (empty when cut off). */
export const invokePattern = (ns: string): RegExp =>
  new RegExp(`<${ns}:invoke\\b([^>]*)>([\\s\\S]*?)(</${ns}:invoke>|(?=<${ns}:invoke\\b)|$)`, 'g')

/**
 * Reads `<NS:invoke name="…"><NS:parameter name="…">VALUE</NS:parameter></NS:invoke>`
 * calls (Glimmer's `atem`, Step-3's `steptml`). Values are text kept exactly; the schema
 * check converts numbers and booleans. Returns the calls and the text left around them
 * (each family says what may stand there), or the first reason an invoke cannot be read.
 */
export function invokeReader(ns: string): (body: string) => { calls: RawCall[]; rest: string } | string {
  const invoke = invokePattern(ns)
  const param = new RegExp(`<${ns}:parameter\\b([^>]*)>([\\s\\S]*?)</${ns}:parameter>`, 'g')
  return (body) => {
    const calls: RawCall[] = []
    let rest = body
    for (const inv of body.matchAll(invoke)) {
      rest = rest.replace(inv[0], '')
      const name = attribute(inv[1], 'name')?.trim()
      if (!name) return `${/^[aeiou]/.test(ns) ? 'an' : 'a'} <${ns}:invoke> has no name`
      if (inv[3] !== `</${ns}:invoke>`) return `the <${ns}:invoke name="${name}"> is not closed`
      const args: Record<string, string> = {}
      let left = inv[2]
      for (const p of inv[2].matchAll(param)) {
        const key = attribute(p[1], 'name')
        if (key) args[key] = p[2]
        left = left.replace(p[0], '')
      }
      if (left.trim() !== '')
        return `unexpected text ${JSON.stringify(quote(left))} in <${ns}:invoke name="${name}">`
      calls.push({ name, arguments: args })
    }
    return { calls, rest }
  }
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

/** The text without end-of-turn tokens a server left at its end (`{…}<|im_end|>`). */
export function withoutTrailingEos(text: string): string {
  return text.replace(
    /(?:\s*(?:<\|(?:im_end|eot_id|eom_id|endoftext|end_of_text)\|>|<\/s>|<eos>|<end_of_turn>))+\s*$/,
    '',
  )
}
