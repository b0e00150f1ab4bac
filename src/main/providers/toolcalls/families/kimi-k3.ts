import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { parseJsonLoose } from '../json-scan'
import { addCalls, attribute, quote, tagBlocks } from './markup-util'

/*
 * Kimi K3's XTML channels: `<|open|>NAME ATTRS<|sep|>…<|close|>NAME<|sep|>`. The answer
 * sits in `response`, the reasoning in `think` (blanked by ../reasoning.ts), the calls in
 *   <|open|>tools<|sep|><|open|>call tool="read_file" index="1"<|sep|>
 *   <|open|>argument key="path" type="string"<|sep|>a.ts<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>
 * An argument's `type` says how to read its text (a string stays raw, the others are
 * JSON); a call may instead hold one `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`.
 * The channel markers around the answer are protocol, dropped once calls run.
 */

const TOOLS_OPEN = '<|open|>tools<|sep|>'
const TOOLS_CLOSE = '<|close|>tools<|sep|>'
const CALL = /<\|open\|>call\b([^|]*)<\|sep\|>([\s\S]*?)(<\|close\|>call<\|sep\|>|(?=<\|open\|>call\b)|$)/g
const ARG = /<\|open\|>argument\b([^|]*)<\|sep\|>([\s\S]*?)<\|close\|>argument<\|sep\|>/g
const JSON_BLOCK = /<\|open\|>json\b[^|]*<\|sep\|>([\s\S]*?)<\|close\|>json<\|sep\|>/g
const PROTOCOL = /<\|open\|>response<\|sep\|>|<\|close\|>(?:response|message)<\|sep\|>|<\|end_of_msg\|>/g
/** Attribute values escape `&` and `"` (vLLM's encoding_k3). */
const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&amp;/g, '&')

function readCall(attrs: string, body: string): RawCall | string {
  const name = unescape(attribute(attrs, 'tool') ?? '').trim()
  if (!name) return 'a <|open|>call has no tool="…"'
  const args: Record<string, unknown> = {}
  let rest = body
  let typed = false
  for (const a of body.matchAll(ARG)) {
    rest = rest.replace(a[0], '')
    typed = true
    const key = unescape(attribute(a[1], 'key') ?? '')
    const type = attribute(a[1], 'type') ?? 'string'
    const parsed = type === 'string' ? undefined : parseJsonLoose(a[2].trim())
    // A typed value that does not parse stays text, as vLLM keeps it; the schema check decides.
    args[key] = parsed?.ok ? parsed.value : a[2]
  }
  const blocks = [...rest.matchAll(JSON_BLOCK)]
  for (const b of blocks) rest = rest.replace(b[0], '')
  if (rest.trim() !== '') return `unexpected text ${JSON.stringify(quote(rest))} in the call to ${name}`
  if (blocks.length === 0) return { name, arguments: args }
  if (typed || blocks.length > 1) return `the call to ${name} mixes a json block with other arguments`
  const parsed = parseJsonLoose(blocks[0][1].trim())
  if (!parsed.ok) return `the json arguments of ${name} do not parse (${parsed.error})`
  return { name, arguments: parsed.value }
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (const { start, bodyStart, bodyEnd, end } of tagBlocks(text, TOOLS_OPEN, TOOLS_CLOSE)) {
    const body = text.slice(bodyStart, bodyEnd)
    const calls: RawCall[] = []
    let problem: string | undefined
    let rest = body
    for (const c of body.matchAll(CALL)) {
      rest = rest.replace(c[0], '')
      if (c[3] === '') {
        problem ??= 'a call is not closed with <|close|>call<|sep|>'
        continue
      }
      const call = readCall(c[1], c[2])
      if (typeof call === 'string') problem ??= call
      else calls.push(call)
    }
    // The message may end inside the section (`<|close|>message<|sep|>` before the tools close).
    rest = rest.replace(PROTOCOL, '')
    if (rest.trim() !== '') problem ??= `unexpected text ${JSON.stringify(quote(rest))} in the tools channel`
    if (calls.length === 0) problem ??= 'the tools channel holds no call'
    addCalls(out, start, end, problem ?? calls)
  }
  for (const m of text.matchAll(PROTOCOL)) {
    out.spans.push({ start: m.index, end: m.index + m[0].length, calls: [], kind: 'markup' })
  }
  return out
}

export const kimiK3: ToolCallFamily = {
  id: 'kimi-k3',
  models: 'Kimi K3 (XTML channels)',
  detect: (text) => text.includes('<|open|>') || text.includes('<|close|>'),
  parse,
  example:
    '<|open|>tools<|sep|><|open|>call tool="read_file" index="1"<|sep|><|open|>argument key="path" type="string"<|sep|>src/main.ts<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
}
