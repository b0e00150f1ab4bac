import { callsFromValue, isObject, openerBalance } from '../json-scan'
import type { FamilyResult, ToolCallFamily } from '../types'
import { jsonAt, skipMarker } from './json-at'

/*
 * Qwen2.5-Coder (vLLM's qwen25_coder_tool_parser): Hermes's JSON in `<tools>` tags,
 * `<tools>\n{"name": …, "arguments": …}\n</tools>`, one call, a list, or several blocks.
 * `<tools>` is also where templates list the tool definitions: a definition echoed back
 * (`{"type": "function", "function": {…, "description", "parameters"}}`) is neither a
 * call nor a broken one.
 */

const OPEN = '<tools>'
const CLOSE = '</tools>'

/** A tool definition (or a list of them), as templates print them inside `<tools>`. */
function isDefinition(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value.every(isDefinition)
  if (!isObject(value)) return false
  const fn = isObject(value.function) ? value.function : value
  return (
    typeof fn.description === 'string' ||
    (isObject(fn.parameters) && Object.hasOwn(fn.parameters, 'properties'))
  )
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  const balance = openerBalance(text, OPEN)
  for (let start = text.indexOf(OPEN); start >= 0; start = text.indexOf(OPEN, start + OPEN.length)) {
    const json = jsonAt(text, start + OPEN.length, balance)
    const close = text.indexOf(CLOSE, start)
    const blockEnd = close < 0 ? text.length : close + CLOSE.length
    if (!json.ok) {
      out.broken.push({
        start,
        end: blockEnd,
        problem: `the JSON after ${OPEN} does not parse (${json.error})`,
      })
      continue
    }
    if (isDefinition(json.value)) continue
    const calls = callsFromValue(json.value)
    const end = skipMarker(text, json.end, CLOSE)
    if (calls && calls.length > 0) out.spans.push({ start, end, calls, kind: 'markup' })
    else
      out.broken.push({ start, end, problem: `the JSON after ${OPEN} is not a {"name", "arguments"} call` })
  }
  return out
}

export const qwen25Coder: ToolCallFamily = {
  id: 'qwen25-coder',
  models: 'Qwen2.5-Coder (<tools> JSON)',
  detect: (text) => text.includes(OPEN),
  parse,
  example: '<tools>\n{"name": "read_file", "arguments": {"path": "src/main.ts"}}\n</tools>',
}
