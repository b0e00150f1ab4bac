import type { FamilyResult, ToolCallFamily } from '../types'
import { forwardFinder, forwardSearch, parseJsonLoose } from '../json-scan'
import { addBlock, quote, withoutTrailingEos, type Piece } from './markup-util'

/*
 * Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{json}<|tool_call_end|><|tool_calls_section_end|>`.
 * The id `functions.NAME:0` is returned as written (index.ts strips the namespace and
 * counter). Some checkpoints write the singular `tool_call_section`, and a call may
 * come without the section around it.
 */
const SECTION_OPEN = /<\|tool_calls?_section_begin\|>/g
const SECTION_CLOSE = /<\|tool_calls?_section_end\|>/
const CALL_OPEN = '<|tool_call_begin|>'
const CALL_CLOSE = '<|tool_call_end|>'
const ARGS = '<|tool_call_argument_begin|>'

const EMPTY = 'the <|tool_calls_section_begin|> block holds no tool call'

function readCall(body: string): Piece {
  const at = body.indexOf(ARGS)
  if (at === -1) return { problem: `a Kimi tool call has no <|tool_call_argument_begin|> (${quote(body)})` }
  const name = body.slice(0, at).trim()
  if (name === '') return { problem: 'a Kimi tool call has no function name' }
  const json = withoutTrailingEos(body.slice(at + ARGS.length)).trim()
  // The template always writes the arguments (`{}` at least): none means the answer was cut off.
  if (json === '') return { problem: `the call to ${name} is cut off before its arguments` }
  const parsed = parseJsonLoose(json)
  if (!parsed.ok) return { problem: `the arguments of ${name} do not parse as JSON (${parsed.error})` }
  return { call: { name, arguments: parsed.value } }
}

/** Each call's text between `<|tool_call_begin|>` and `<|tool_call_end|>` (or the next call). */
function callBodies(section: string): string[] {
  return section
    .split(CALL_OPEN)
    .slice(1)
    .map((p) => (p.includes(CALL_CLOSE) ? p.slice(0, p.indexOf(CALL_CLOSE)) : p))
}

export const kimi: ToolCallFamily = {
  id: 'kimi',
  models: 'Kimi K2 (Moonshot)',
  detect: (text) => text.includes('<|tool_call_begin|>') || /<\|tool_calls?_section_begin\|>/.test(text),
  parse(text) {
    const out: FamilyResult = { spans: [], broken: [] }
    const claimed: Array<[number, number]> = []
    const closeSection = forwardSearch(text, SECTION_CLOSE)
    const nextSection = forwardSearch(text, SECTION_OPEN)
    for (const m of text.matchAll(SECTION_OPEN)) {
      const start = m.index
      const bodyStart = start + m[0].length
      const close = closeSection(bodyStart)
      const next = nextSection(bodyStart)
      // A section never closed runs to the next section (or the end), never over it.
      const closed = close !== null && (next === null || close.index < next.index)
      const bodyEnd = closed ? close.index : (next?.index ?? text.length)
      const end = closed ? bodyEnd + close[0].length : bodyEnd
      claimed.push([start, end])
      addBlock(out, { start, end }, callBodies(text.slice(bodyStart, bodyEnd)), {
        read: readCall,
        empty: EMPTY,
      })
    }
    // Calls written without a section around them (sections are in order: one pointer walks them).
    const closeAfter = forwardFinder(text, CALL_CLOSE)
    let k = 0
    for (let at = text.indexOf(CALL_OPEN); at !== -1; at = text.indexOf(CALL_OPEN, at + 1)) {
      while (k < claimed.length && claimed[k][1] <= at) k++
      if (k < claimed.length && claimed[k][0] <= at) continue
      const bodyStart = at + CALL_OPEN.length
      const close = closeAfter(bodyStart)
      const next = text.indexOf(CALL_OPEN, bodyStart)
      const closed = close !== -1 && (next === -1 || close < next)
      const bodyEnd = closed ? close : next === -1 ? text.length : next
      const end = closed ? close + CALL_CLOSE.length : bodyEnd
      addBlock(out, { start: at, end }, [text.slice(bodyStart, bodyEnd)], { read: readCall, empty: EMPTY })
    }
    return out
  },
  example:
    '<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{"path": "src/main.ts"}<|tool_call_end|><|tool_calls_section_end|>',
}
