import type { FamilyResult, ToolCallFamily } from '../types'
import { callsAt, markerBlocks } from './json-at'

/*
 * GigaChat 3: a new message `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": …, "arguments": …}`;
 * GigaChat 3.1: `<|function_call|>{"name": …, "arguments": …}`. The markers are the
 * model's own, so the JSON after them is markup; `</s>` after it is an end-of-turn token.
 */

const V3 = 'function call<|role_sep|>'
const V31 = '<|function_call|>'
/** The message separator that opens the call's message belongs to the call. */
const SEPARATOR = /<\|message_sep\|>\s*$/

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (const marker of [V3, V31]) {
    const r = markerBlocks(text, marker, '', 'the JSON', (from, balance) => callsAt(text, from, balance))
    for (const span of [...r.spans, ...r.broken]) {
      const before = SEPARATOR.exec(text.slice(Math.max(0, span.start - 40), span.start))
      if (before) span.start -= before[0].length
    }
    out.spans.push(...r.spans)
    // No closing marker: unreadable JSON runs to the end of the answer.
    out.broken.push(...r.broken.map((b) => ({ ...b, end: text.length })))
  }
  return out
}

export const gigachat: ToolCallFamily = {
  id: 'gigachat',
  models: 'GigaChat 3, GigaChat 3.1',
  detect: (text) => text.includes(V3) || text.includes(V31),
  parse,
  example: '<|function_call|>{"name": "read_file", "arguments": {"path": "src/main.ts"}}',
}
