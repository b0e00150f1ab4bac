import type { FamilyResult, ToolCallFamily } from '../types'
import { openerBalance } from '../json-scan'
import { callsAt } from './json-at'

/*
 * FireFunction v2 and Phi-4-mini: `functools[{"name":…,"arguments":…}, …]`, with text
 * before or after. Only `functools` glued to `[` (or `{`) counts, so prose about
 * Python's functools module is left alone.
 */

const MARK = /functools(?=\s*[[{])/g

export const functools: ToolCallFamily = {
  id: 'functools',
  models: 'FireFunction v2, Phi-4-mini',
  detect: (text) => /functools\s*[[{]/.test(text),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    const balance = openerBalance(text, 'functools')
    for (const m of text.matchAll(MARK)) {
      const start = m.index
      if (/[\w.]/.test(text[start - 1] ?? '')) continue // `my_functools[…]`, `self.functools[…]`
      const r = callsAt(text, start + m[0].length, balance)
      if (r.ok) {
        if (r.calls.length > 0) result.spans.push({ start, end: r.end, calls: r.calls, kind: 'markup' })
      } else
        result.broken.push({
          start,
          end: r.end,
          problem: `the JSON after functools does not parse (${r.error})`,
        })
    }
    return result
  },
  example: 'functools[{"name": "read_file", "arguments": {"path": "src/main.ts"}}]',
}
