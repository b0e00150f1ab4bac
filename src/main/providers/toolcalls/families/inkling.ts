import { balancedEnd, isObject, parseJson, skipSpace } from '../json-scan'
import type { FamilyResult, ToolCallFamily } from '../types'

/*
 * Inkling (vLLM's engine parser, tests/parser/engine/test_inkling.py): typed blocks
 * between special tokens. A call is `<|content_invoke_tool_json|>{"name": …, "args": {…}}`
 * ended by `<|end_message|>`; text is `<|content_text|>…`, reasoning
 * `<|content_thinking|>…` (see ../reasoning.ts), messages are joined by `<|message_model|>`.
 * `<|content_invoke_tool_text|>` and `<|content_tool_error|>` hold text, never a call.
 * A call never finished is reported (upstream runs what arrived).
 */

const TOOL_JSON = '<|content_invoke_tool_json|>'
/** Protocol around the blocks: dropped from the shown text once calls run. */
const PROTOCOL = /<\|(?:message_model|content_text|end_message|content_model_end_sampling)\|>/g

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (let at = text.indexOf(TOOL_JSON); at >= 0; at = text.indexOf(TOOL_JSON, at + 1)) {
    const from = skipSpace(text, at + TOOL_JSON.length)
    const end = text[from] === '{' ? balancedEnd(text, from) : -1
    if (end < 0) {
      out.broken.push({
        start: at,
        end: text.length,
        problem: 'the Inkling tool call is cut off or not JSON',
      })
      continue
    }
    const parsed = parseJson(text.slice(from, end))
    const v = parsed.ok ? parsed.value : undefined
    const args = isObject(v) ? (v.args ?? v.arguments ?? {}) : undefined
    if (!isObject(v) || typeof v.name !== 'string' || v.name.trim() === '' || !isObject(args)) {
      out.broken.push({ start: at, end, problem: 'the Inkling tool call is not {"name": …, "args": {…}}' })
      continue
    }
    // The message terminator right after the call is part of it.
    const close = /^\s*<\|end_message\|>/.exec(text.slice(end))
    const spanEnd = close ? end + close[0].length : end
    out.spans.push({
      start: at,
      end: spanEnd,
      calls: [{ name: v.name.trim(), arguments: args }],
      kind: 'markup',
    })
  }
  if (out.spans.length > 0) {
    for (const m of text.matchAll(PROTOCOL))
      out.spans.push({ start: m.index, end: m.index + m[0].length, calls: [], kind: 'markup' })
  }
  return out
}

export const inkling: ToolCallFamily = {
  id: 'inkling',
  models: 'Inkling (<|content_invoke_tool_json|>)',
  detect: (text) => text.includes(TOOL_JSON),
  parse,
  example: `${TOOL_JSON}{"name": "read_file", "args": {"path": "src/main.ts"}}<|end_message|>`,
}
