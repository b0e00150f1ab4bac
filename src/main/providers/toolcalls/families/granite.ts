import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { balancedEnd, parseJsonLoose, skipSpace } from '../json-scan'
import { namedCall } from './markup-util'

/*
 * IBM Granite. 3.0 writes the special token `<|tool_call|>` then a JSON list; 3.1 writes
 * `<tool_call>` then the list with no closing tag; Granite 20B FC writes
 * `<function_call> {json}` once per call. Granite 4 writes Hermes blocks
 * (`<tool_call>{json}</tool_call>`), which the hermes family reads: here `<tool_call>`
 * counts only when a JSON list follows it.
 */
const MARKERS = /<\|tool_call\|>|<tool_call>(?=\s*\[)|<function_call>/g

export const granite: ToolCallFamily = {
  id: 'granite',
  models: 'IBM Granite 3.x, Granite 20B function calling',
  detect: (text) =>
    text.includes('<|tool_call|>') || text.includes('<function_call>') || /<tool_call>\s*\[/.test(text),
  parse(text) {
    const out: FamilyResult = { spans: [], broken: [] }
    for (const m of text.matchAll(MARKERS)) {
      const start = m.index
      const marker = m[0]
      const jsonStart = skipSpace(text, start + marker.length)
      const opener = text[jsonStart]
      if (opener !== '[' && opener !== '{') {
        if (marker !== '<function_call>' || jsonStart >= text.length) {
          out.broken.push({ start, end: start + marker.length, problem: `no JSON follows ${marker}` })
        }
        continue
      }
      const jsonEnd = balancedEnd(text, jsonStart)
      if (jsonEnd === -1) {
        out.broken.push({
          start,
          end: text.length,
          problem: `the JSON after ${marker} is cut off before it closes`,
        })
        break // everything after belongs to this cut-off call
      }
      let end = jsonEnd
      const close = /^\s*<\/tool_call>/.exec(text.slice(jsonEnd))
      if (close && marker === '<tool_call>') end += close[0].length
      const parsed = parseJsonLoose(text.slice(jsonStart, jsonEnd))
      if (!parsed.ok) {
        out.broken.push({ start, end, problem: `the JSON after ${marker} does not parse (${parsed.error})` })
        continue
      }
      const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value]
      const calls: RawCall[] = []
      let problem: string | undefined
      for (const item of items) {
        const call = namedCall(item)
        if (typeof call === 'string') problem ??= `${call} after ${marker}`
        else calls.push(call)
      }
      if (calls.length === 0) problem ??= `the list after ${marker} is empty`
      if (problem) out.broken.push({ start, end, problem })
      else out.spans.push({ start, end, calls, kind: 'markup' })
    }
    return out
  },
  example: '<|tool_call|>[{"name": "read_file", "arguments": {"path": "src/main.ts"}}]',
}
