import type { FamilyResult, ToolCallFamily } from '../types'
import { forwardFinder, openerBalance } from '../json-scan'
import { callsAt, indexesOf, skipMarker } from './json-at'

/*
 * NVIDIA Nemotron (Llama-Nemotron, Nemotron Nano v2): `<TOOLCALL>[{"name":…,"arguments":…}]</TOOLCALL>`,
 * sometimes a single object instead of a list, arguments sometimes a JSON string.
 * Nemotron 3 Nano writes Qwen3-Coder XML inside `<tool_call>`; the qwen3-coder family reads that.
 */

const OPEN = '<TOOLCALL>'
const CLOSE = '</TOOLCALL>'

export const nemotron: ToolCallFamily = {
  id: 'nemotron',
  models: 'Llama-Nemotron, Nemotron Nano v2',
  detect: (text) => text.includes(OPEN),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    const balance = openerBalance(text, OPEN)
    const closeAfter = forwardFinder(text, CLOSE)
    for (const start of indexesOf(text, OPEN)) {
      const r = callsAt(text, start + OPEN.length, balance)
      if (r.ok) {
        if (r.calls.length > 0)
          result.spans.push({ start, end: skipMarker(text, r.end, CLOSE), calls: r.calls, kind: 'markup' })
      } else {
        const close = closeAfter(start)
        const end = close < 0 ? text.length : close + CLOSE.length
        result.broken.push({ start, end, problem: `the JSON after ${OPEN} does not parse (${r.error})` })
      }
    }
    return result
  },
  example: '<TOOLCALL>[{"name": "read_file", "arguments": {"path": "src/main.ts"}}]</TOOLCALL>',
}
