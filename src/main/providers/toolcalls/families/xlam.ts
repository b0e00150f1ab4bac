import type { FamilyResult, Span, ToolCallFamily } from '../types'
import { callsAt, indexesOf, skipMarker } from './json-at'

/*
 * Salesforce xLAM: the whole answer is `[{"name":…,"arguments":…}, …]`. Fine-tunes and
 * servers also wrap it in a ```json fence, `<tool_call>…</tool_call>` or `[TOOL_CALLS]`,
 * and the reasoning variants put it after `</think>`. The bare and fenced forms are
 * `json` (they also appear in explanations); only the wrappers are markup.
 */

const WRAPPERS: readonly { open: string; close?: string }[] = [
  { open: '[TOOL_CALLS]' },
  { open: '<tool_call>', close: '</tool_call>' },
]
const FENCE = /```(?:json)?[ \t]*\n([\s\S]*?)\n?```/g

export const xlam: ToolCallFamily = {
  id: 'xlam',
  models: 'xLAM-2 (Salesforce)',
  detect: (text) => /\[\s*\{\s*"name"/.test(text),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    for (const w of WRAPPERS) {
      for (const start of indexesOf(text, w.open)) {
        const r = callsAt(text, start + w.open.length)
        if (!r.ok) {
          // Only xLAM's list shape is ours to report; hermes and mistral read their own.
          if (/^\s*\[\s*\{/.test(text.slice(start + w.open.length))) {
            result.broken.push({
              start,
              end: r.end,
              problem: `the list after ${w.open} does not parse (${r.error})`,
            })
          }
          continue
        }
        if (r.calls.length === 0) continue
        const end = w.close ? skipMarker(text, r.end, w.close) : r.end
        result.spans.push({ start, end, calls: r.calls, kind: 'markup' })
      }
    }
    for (const m of text.matchAll(FENCE)) {
      const r = callsAt(m[1], 0)
      if (r.ok && r.calls.length > 0 && m[1].slice(r.end).trim() === '') {
        result.spans.push({ start: m.index, end: m.index + m[0].length, calls: r.calls, kind: 'json' })
      }
    }
    const bare = bareAnswer(text)
    if (bare && !result.spans.some((s) => s.start <= bare.start && s.end >= bare.end)) result.spans.push(bare)
    return result
  },
  example: '[{"name": "read_file", "arguments": {"path": "src/main.ts"}}]',
}

/** The text after the last `</think>` (reasoning the orchestrator did not remove), with its offset. */
function answerPart(text: string): { text: string; offset: number } {
  const close = text.lastIndexOf('</think>')
  const offset = close < 0 ? 0 : close + '</think>'.length
  return { text: text.slice(offset), offset }
}

/** The answer that is nothing but a JSON list (or object) of calls. */
function bareAnswer(text: string): Span | undefined {
  const { text: answer, offset } = answerPart(text)
  const lead = answer.length - answer.trimStart().length
  if (!/^[[{]/.test(answer.trimStart())) return undefined
  const r = callsAt(answer, lead)
  if (!r.ok || r.calls.length === 0 || answer.slice(r.end).trim() !== '') return undefined
  return { start: offset + lead, end: offset + r.end, calls: r.calls, kind: 'json' }
}
