import type { RawCall, ToolCallFamily } from '../types'
import { callsFromValue, isObject } from '../json-scan'
import { jsonAt, markerBlocks } from './json-at'

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
  parse: (text) =>
    markerBlocks(text, { open: OPEN, close: CLOSE, what: 'the list' }, (from, balance) => {
      const json = jsonAt(text, from, balance)
      if (!json.ok) return json
      // Some fine-tunes write the generic {"name", "arguments"} shape between Apertus's tokens.
      const calls = namedCalls(json.value) ?? callsFromValue(json.value)
      return calls
        ? { ok: true, calls, end: json.end }
        : { ok: false, error: 'each call must be {"NAME": {arguments}}', end: json.end }
    }),
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
