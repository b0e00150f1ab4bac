import { callsFromValue, parseJsonLoose } from '../json-scan'
import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { addCalls, quote, tagBlocks } from './markup-util'

/*
 * K2 Horizon (vLLM's k2_horizon_tool_parser): calls in `<ifm|…>` tags, grouped,
 *   <ifm|tool_calls><ifm|tool_call>read_file<ifm|arg_key>path</ifm|arg_key>
 *   <ifm|arg_value>src/a.ts</ifm|arg_value></ifm|tool_call></ifm|tool_calls>
 * in one of three shapes the request picks: `xml` (above), `xml_typed` (an
 * `<ifm|arg_type>…</ifm|arg_type>` after each key) or `json` (`{"name", "arguments"}`
 * in the call tag). Values are text; `../index.ts` converts them to the schema's types.
 * A group that is not closed, or holds anything but calls, runs nothing (upstream keeps
 * it as content; here it is reported so the model can write it again). SGLang reads the
 * same format as K2-V3, after reasoning in `<ifm|think>` (see ../reasoning.ts).
 */

const GROUP_OPEN = '<ifm|tool_calls>'
const GROUP_CLOSE = '</ifm|tool_calls>'
const CALL = /<ifm\|tool_call>([\s\S]*?)(<\/ifm\|tool_call>|(?=<ifm\|tool_call>|<\/ifm\|tool_calls>)|$)/g
const PAIR =
  /<ifm\|arg_key>([\s\S]*?)<\/ifm\|arg_key>\s*(?:<ifm\|arg_type>[\s\S]*?<\/ifm\|arg_type>\s*)?<ifm\|arg_value>([\s\S]*?)<\/ifm\|arg_value>/g

/** The calls in one `<ifm|tool_call>` (a JSON list holds several), or why they cannot run. */
function readCall(body: string, closed: boolean): RawCall[] | string {
  if (!closed) return `the call ${JSON.stringify(quote(body))} is not closed with </ifm|tool_call>`
  const trimmed = body.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = parseJsonLoose(trimmed)
    if (!parsed.ok) return `the JSON in <ifm|tool_call> does not parse (${parsed.error})`
    const calls = callsFromValue(parsed.value)
    return calls && calls.length > 0 ? calls : 'the JSON in <ifm|tool_call> has no "name"'
  }
  const name = /^[^\s<>]+/.exec(trimmed)?.[0]
  if (!name) return 'an <ifm|tool_call> has no tool name'
  const args: Record<string, string> = {}
  const rest = trimmed.slice(name.length).replace(PAIR, (_all, key: string, value: string) => {
    args[key.trim()] = value
    return ''
  })
  if (rest.trim() !== '') return `unexpected text ${JSON.stringify(quote(rest))} in the call to ${name}`
  return [{ name, arguments: args }]
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  const claimed: Array<[number, number]> = []
  for (const b of tagBlocks(text, GROUP_OPEN, GROUP_CLOSE)) {
    claimed.push([b.start, b.end])
    const body = text.slice(b.bodyStart, b.bodyEnd)
    if (!b.closed) {
      out.broken.push({ start: b.start, end: b.end, problem: `the ${GROUP_OPEN} group is not closed` })
      continue
    }
    const calls: Array<{ body: string; closed: boolean }> = []
    const stray = body.replace(CALL, (_all, inner: string, close: string) => {
      calls.push({ body: inner, closed: close !== '' })
      return ''
    })
    if (stray.trim() !== '') {
      out.broken.push({
        start: b.start,
        end: b.end,
        problem: `unexpected text ${JSON.stringify(quote(stray))} in ${GROUP_OPEN}`,
      })
      continue
    }
    // One unreadable call stops the whole group: never run half a batch.
    const read = calls.map((c) => readCall(c.body, c.closed))
    const problem = read.find((r): r is string => typeof r === 'string')
    const all = read.flatMap((r) => (typeof r === 'string' ? [] : r))
    addCalls(out, b.start, b.end, problem ?? (all.length > 0 ? all : `the ${GROUP_OPEN} group holds no call`))
  }
  // A call written without its group is still the model's call.
  for (const m of text.matchAll(CALL)) {
    if (claimed.some(([s, e]) => s <= m.index && m.index < e)) continue
    addCalls(out, m.index, m.index + m[0].length, readCall(m[1], m[2] !== ''))
  }
  return out
}

export const k2Horizon: ToolCallFamily = {
  id: 'k2-horizon',
  models: 'K2 Horizon (<ifm|tool_calls>)',
  detect: (text) => text.includes('<ifm|tool_call'),
  parse,
  example:
    '<ifm|tool_calls><ifm|tool_call>read_file<ifm|arg_key>path</ifm|arg_key><ifm|arg_value>src/main.ts</ifm|arg_value></ifm|tool_call></ifm|tool_calls>',
}
