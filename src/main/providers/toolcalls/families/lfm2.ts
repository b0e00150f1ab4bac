import type { FamilyResult, ToolCallFamily } from '../types'
import { forwardFinder, matchAt, openerBalance } from '../json-scan'
import { callsAt, indexesOf } from './json-at'
import { parsePyCalls } from '../python-literal'

/*
 * Liquid LFM2 / LFM2.5: `<|tool_call_start|>[read_file(path="a.ts"), git_status()]<|tool_call_end|>`,
 * a Python list between special tokens; with a "force json schema" system prompt it
 * writes `[{"name":…,"arguments":…}]` between the same tokens instead.
 */

const OPEN = '<|tool_call_start|>'
const CLOSE = '<|tool_call_end|>'

export const lfm2: ToolCallFamily = {
  id: 'lfm2',
  models: 'LFM2, LFM2.5',
  detect: (text) => text.includes(OPEN),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    const balance = openerBalance(text, OPEN)
    const closeAfter = forwardFinder(text, CLOSE)
    const nextOpen = forwardFinder(text, OPEN)
    for (const start of indexesOf(text, OPEN)) {
      const bodyAt = start + OPEN.length
      const close = closeAfter(bodyAt)
      const blockEnd = close < 0 ? text.length : close + CLOSE.length
      const isJson = matchAt(/\s*(\{|\[\s*\{)/, text, bodyAt) !== null
      // Python is read within the block: up to its closing token, or the next block's opener.
      const next = nextOpen(bodyAt)
      const limit = Math.min(close < 0 ? text.length : close, next < 0 ? text.length : next)
      const r = isJson ? callsAt(text, bodyAt, balance) : parsePyCalls(text, bodyAt, limit)
      // Without the closing token the model simply stopped; what follows the calls is prose.
      const rest = r.ok && close >= 0 ? text.slice(r.end, close).trim() : ''
      if (r.ok && rest === '') {
        if (r.calls.length > 0) {
          result.spans.push({ start, end: close < 0 ? r.end : blockEnd, calls: r.calls, kind: 'markup' })
        }
      } else {
        const why = r.ok ? `"${rest.slice(0, 30)}" follows the calls` : r.error
        result.broken.push({ start, end: blockEnd, problem: `the calls after ${OPEN} do not parse (${why})` })
      }
    }
    return result
  },
  example: '<|tool_call_start|>[read_file(path="src/main.ts")]<|tool_call_end|>',
}
