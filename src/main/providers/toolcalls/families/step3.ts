import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { addCalls, invokePattern, invokeReader, quote } from './markup-util'

/*
 * StepFun Step-3: DeepSeek-style section tokens around XML-ish calls,
 *   <｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="read_file">
 *   <steptml:parameter name="path">a.ts</steptml:parameter></steptml:invoke><｜tool_call_end｜>…<｜tool_calls_end｜>
 * sometimes with `function<｜tool_sep｜>NAME` before the invoke. Parameter values are
 * text kept exactly (an edit's old_string keeps its spaces); the schema check converts
 * the numbers and booleans. The `deepseek` family leaves these sections alone.
 */

const BAR = '[｜|]'
const SEP = '(?:▁|_| )'
const SECTION = new RegExp(
  `<${BAR}tool${SEP}calls${SEP}begin${BAR}>([\\s\\S]*?)(?:<${BAR}tool${SEP}calls${SEP}end${BAR}>|$)`,
  'g',
)
const CALL_TOKEN = new RegExp(`<${BAR}tool${SEP}(?:call${SEP}(?:begin|end)|sep)${BAR}>|\\bfunction\\b`, 'g')
const INVOKE = invokePattern('steptml')
const invokes = invokeReader('steptml')

/** The invokes in `body`, or the first reason one cannot be read. */
function readInvokes(body: string): RawCall[] | string {
  const read = invokes(body)
  if (typeof read === 'string') return read
  const { calls, rest } = read
  // Between calls only the per-call tokens (and the `function` type word) may stand.
  const stray = rest.replace(CALL_TOKEN, '').replace(/(?<=^|\s)[A-Za-z_][\w.-]*(?=\s*$)/gm, '')
  if (stray.trim() !== '') return `unexpected text ${JSON.stringify(quote(stray))} between Step-3 calls`
  return calls.length > 0 ? calls : 'the tool-calls section holds no complete <steptml:invoke>'
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  const claimed: Array<[number, number]> = []
  for (const m of text.matchAll(SECTION)) {
    if (!m[1].includes('<steptml:invoke')) continue
    const start = m.index
    const end = start + m[0].length
    claimed.push([start, end])
    addCalls(out, start, end, readInvokes(m[1]))
  }
  // Invokes written without the section tokens: each one is its own call.
  for (const inv of text.matchAll(INVOKE)) {
    if (claimed.some(([s, e]) => s <= inv.index && inv.index < e)) continue
    const start = inv.index
    const end = start + inv[0].length
    addCalls(out, start, end, readInvokes(inv[0]))
  }
  return out
}

export const step3: ToolCallFamily = {
  id: 'step3',
  models: 'Step-3 (StepFun)',
  detect: (text) => text.includes('<steptml:invoke'),
  parse,
  example:
    '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="read_file"><steptml:parameter name="path">src/main.ts</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
}
