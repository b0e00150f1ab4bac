import type { FamilyResult, ToolCallFamily } from '../types'
import { forwardFinder, openerBalance } from '../json-scan'
import { callsAt } from './json-at'

/*
 * InternLM2 / InternLM2.5 and Intern-S1: `<|action_start|><|plugin|>\n{"name":…,"parameters":…}<|action_end|>`,
 * one call per block, several blocks in a row; Intern-S1 may put spaces or a newline
 * between the tokens. `<|interpreter|>` blocks (code for the built-in interpreter) are not tool calls.
 */

const OPEN = /<\|action_start\|>\s*<\|plugin\|>/g
const CLOSE = '<|action_end|>'

export const internlm: ToolCallFamily = {
  id: 'internlm',
  models: 'InternLM2, InternLM2.5, Intern-S1',
  detect: (text) => text.includes('<|action_start|>'),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    const balance = openerBalance(text, '<|action_start|>')
    const closeAfter = forwardFinder(text, CLOSE)
    for (const m of text.matchAll(OPEN)) {
      const start = m.index
      const close = closeAfter(start)
      const r = callsAt(text, start + m[0].length, balance)
      if (r.ok && (close < 0 || /^\s*$/.test(text.slice(r.end, Math.max(r.end, close))))) {
        const end = close < 0 ? r.end : close + CLOSE.length
        if (r.calls.length > 0) result.spans.push({ start, end, calls: r.calls, kind: 'markup' })
      } else {
        const why = r.ok ? 'text follows the JSON' : r.error
        const end = close < 0 ? text.length : close + CLOSE.length
        result.broken.push({ start, end, problem: `the JSON after <|plugin|> does not parse (${why})` })
      }
    }
    return result
  },
  example:
    '<|action_start|><|plugin|>\n{"name": "read_file", "parameters": {"path": "src/main.ts"}}<|action_end|>',
}
