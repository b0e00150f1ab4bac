import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { callsFromValue, forwardFinder, isObject, openerBalance } from '../json-scan'
import { indexesOf, jsonAt, skipMarker } from './json-at'

/*
 * Swiss AI Apertus: `<|tools_prefix|>[{"NAME": {args}}, …]<|tools_suffix|>` — each call
 * is an object with one key, the tool's name. The model sometimes stops before the
 * suffix; the list is still whole, so it is still read.
 */

const OPEN = '<|tools_prefix|>'
const CLOSE = '<|tools_suffix|>'

export const apertus: ToolCallFamily = {
  id: 'apertus',
  models: 'Apertus',
  detect: (text) => text.includes(OPEN),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    const balance = openerBalance(text, OPEN)
    const closeAfter = forwardFinder(text, CLOSE)
    for (const start of indexesOf(text, OPEN)) {
      const json = jsonAt(text, start + OPEN.length, balance)
      // Some fine-tunes write the generic {"name", "arguments"} shape between Apertus's tokens.
      const calls = json.ok ? (namedCalls(json.value) ?? callsFromValue(json.value)) : undefined
      if (json.ok && calls) {
        if (calls.length > 0) {
          result.spans.push({ start, end: skipMarker(text, json.end, CLOSE), calls, kind: 'markup' })
        }
        continue
      }
      const close = closeAfter(start)
      const why = json.ok ? 'each call must be {"NAME": {arguments}}' : json.error
      result.broken.push({
        start,
        end: close < 0 ? text.length : close + CLOSE.length,
        problem: `the list after ${OPEN} does not parse (${why})`,
      })
    }
    return result
  },
  example: '<|tools_prefix|>[{"read_file": {"path": "src/main.ts"}}]<|tools_suffix|>',
}

/** `[{"NAME": args}, …]` (or one such object) as calls; undefined if any element is not that shape. */
function namedCalls(value: unknown): RawCall[] | undefined {
  const items = Array.isArray(value) ? value : [value]
  const calls: RawCall[] = []
  for (const item of items) {
    if (!isObject(item)) return undefined
    const keys = Object.keys(item)
    if (keys.length !== 1 || !isObject(item[keys[0]])) return undefined
    calls.push({ name: keys[0], arguments: item[keys[0]] })
  }
  return calls
}
