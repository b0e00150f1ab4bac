import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { parseJsonLoose } from '../json-scan'
import { addCalls, quote, tagBlocks } from './markup-util'

/*
 * PLaMo 3 (Preferred Networks): special tokens around each part of a call,
 *   <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>
 *   <|plamo:begin_tool_name:plamo|>read_file<|plamo:end_tool_name:plamo|>
 *   <|plamo:begin_tool_arguments:plamo|>[<|plamo:constrain|>json<|plamo:msg|>]{…}<|plamo:end_tool_arguments:plamo|>
 *   <|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>
 * A section with one unreadable request is broken whole.
 */

const tok = (name: string) => `<|plamo:${name}:plamo|>`
const SECTION_OPEN = tok('begin_tool_requests')
const SECTION_CLOSE = tok('end_tool_requests')
const REQUEST =
  /<\|plamo:begin_tool_request:plamo\|>([\s\S]*?)(<\|plamo:end_tool_request:plamo\|>|(?=<\|plamo:begin_tool_request:plamo\|>)|$)/g
const NAME = /<\|plamo:begin_tool_name:plamo\|>([\s\S]*?)<\|plamo:end_tool_name:plamo\|>/
const ARGS =
  /<\|plamo:begin_tool_arguments:plamo\|>(?:<\|plamo:constrain\|>json)?(?:<\|plamo:msg\|>)?([\s\S]*?)(<\|plamo:end_tool_arguments:plamo\|>|$)/

function readRequest(body: string): RawCall | string {
  const name = NAME.exec(body)?.[1].trim()
  if (!name) return 'a PLaMo tool request has no name'
  const args = ARGS.exec(body)
  if (!args) return { name, arguments: {} }
  const json = args[1].trim()
  if (json === '') return { name, arguments: {} }
  const parsed = parseJsonLoose(json)
  if (!parsed.ok) return `the arguments of ${name} do not parse as JSON (${parsed.error}: ${quote(json)})`
  return { name, arguments: parsed.value }
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  // Requests are read inside their section, or alone when the section tokens are missing.
  const sections = [...tagBlocks(text, SECTION_OPEN, SECTION_CLOSE)].map((b): [number, number] => [
    b.start,
    b.end,
  ])
  const requests = [...text.matchAll(REQUEST)]
  const blocks: Array<[number, number]> = [...sections]
  for (const r of requests) {
    if (!sections.some(([s, e]) => s <= r.index && r.index < e)) blocks.push([r.index, r.index + r[0].length])
  }
  for (const [start, end] of blocks.sort((a, b) => a[0] - b[0])) {
    const inside = requests.filter((r) => start <= r.index && r.index < end)
    const calls: RawCall[] = []
    let problem: string | undefined
    for (const r of inside) {
      if (r[2] === '') problem ??= 'a PLaMo tool request is not closed'
      const call = readRequest(r[1])
      if (typeof call === 'string') problem ??= call
      else calls.push(call)
    }
    if (calls.length === 0) problem ??= 'the PLaMo tool requests hold no request'
    addCalls(out, start, end, problem ?? calls)
  }
  return out
}

export const plamo3: ToolCallFamily = {
  id: 'plamo3',
  models: 'PLaMo 3 (Preferred Networks)',
  detect: (text) => text.includes('<|plamo:begin_tool_request'),
  parse,
  example: `${SECTION_OPEN}${tok('begin_tool_request')}${tok('begin_tool_name')}read_file${tok('end_tool_name')}${tok('begin_tool_arguments')}{"path": "src/main.ts"}${tok('end_tool_arguments')}${tok('end_tool_request')}${SECTION_CLOSE}`,
}
