import { parseJson } from '../json-scan'
import type { FamilyResult, ToolCallFamily } from '../types'
import { callsAt, markerBlocks } from './json-at'
import { addPieces, attribute, quote, tagBlocks, type Piece } from './markup-util'
import { pushAll } from '../../../../shared/arrays'

/*
 * GigaChat 3: a new message `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": …, "arguments": …}`;
 * GigaChat 3.1: `<|function_call|>{"name": …, "arguments": …}`. The markers are the
 * model's own, so the JSON after them is markup; `</s>` after it is an end-of-turn token.
 * GigaChat 3.5 (vLLM's gigachat35 parser) writes XML-ish GCML instead:
 *   <｜GCML｜tool_calls><｜GCML｜invoke name="read_file">
 *   <｜GCML｜parameter name="path" string="true">a.ts</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>
 * where `string="false"` marks a value written as JSON (a number, an object, null).
 */

const V3 = 'function call<|role_sep|>'
const V31 = '<|function_call|>'
/** The message separator that opens the call's message belongs to the call. */
const SEPARATOR = /<\|message_sep\|>\s*$/

const GCML_OPEN = /<[｜|]GCML[｜|]tool_calls>/
const GCML_CLOSE = /<\/[｜|]GCML[｜|]tool_calls>/
const INVOKE =
  /<[｜|]GCML[｜|]invoke\b([^>]*)>([\s\S]*?)(<\/[｜|]GCML[｜|]invoke>|(?=<[｜|]GCML[｜|]invoke\b)|$)/g
const PARAM = /<[｜|]GCML[｜|]parameter\b([^>]*)>([\s\S]*?)<\/[｜|]GCML[｜|]parameter>/g

function readInvoke(attrs: string, body: string, closed: boolean): Piece {
  const name = attribute(attrs, 'name')?.trim()
  if (!name) return { problem: 'a GCML invoke has no name' }
  if (!closed) return { problem: `the GCML invoke of ${name} is not closed` }
  const args: Record<string, unknown> = {}
  const rest = body.replace(PARAM, (_all, pattrs: string, value: string) => {
    const key = attribute(pattrs, 'name') ?? ''
    const parsed = attribute(pattrs, 'string') === 'false' ? parseJson(value) : undefined
    args[key] = parsed?.ok ? parsed.value : value
    return ''
  })
  if (rest.trim() !== '' || Object.hasOwn(args, ''))
    return { problem: `unexpected text ${JSON.stringify(quote(rest || body))} in the GCML invoke of ${name}` }
  return { call: { name, arguments: args } }
}

function parseGcml(text: string, out: FamilyResult): void {
  const open = GCML_OPEN.exec(text)?.[0]
  if (!open) return
  const close = `</${open.slice(1)}`
  for (const b of tagBlocks(text, open, close)) {
    if (!b.closed) {
      out.broken.push({ start: b.start, end: b.end, problem: `the ${open} block is not closed` })
      continue
    }
    const body = text.slice(b.bodyStart, b.bodyEnd)
    const pieces: Piece[] = []
    const stray = body.replace(INVOKE, (_all, attrs: string, inner: string, end: string) => {
      pieces.push(readInvoke(attrs, inner, end !== ''))
      return ''
    })
    if (stray.trim() !== '')
      pieces.push({ problem: `unexpected text ${JSON.stringify(quote(stray))} in ${open}` })
    addPieces(out, b, pieces, `the ${open} block holds no call`)
  }
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  parseGcml(text, out)
  for (const marker of [V3, V31]) {
    const r = markerBlocks(text, { open: marker, close: '', what: 'the JSON' }, (from, balance) =>
      callsAt(text, from, balance),
    )
    for (const span of [...r.spans, ...r.broken]) {
      const before = SEPARATOR.exec(text.slice(Math.max(0, span.start - 40), span.start))
      if (before) span.start -= before[0].length
    }
    pushAll(out.spans, r.spans)
    // No closing marker: unreadable JSON runs to the end of the answer.
    pushAll(
      out.broken,
      r.broken.map((b) => ({ ...b, end: text.length })),
    )
  }
  return out
}

export const gigachat: ToolCallFamily = {
  id: 'gigachat',
  models: 'GigaChat 3, GigaChat 3.1, GigaChat 3.5',
  detect: (text) => text.includes(V3) || text.includes(V31) || GCML_OPEN.test(text) || GCML_CLOSE.test(text),
  parse,
  example: '<|function_call|>{"name": "read_file", "arguments": {"path": "src/main.ts"}}',
}
