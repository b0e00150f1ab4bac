import { budgetedBalance, callRun } from '../json-scan'
import type { Span, ToolCallFamily } from '../types'

/*
 * Calls written as plain JSON, with no format marker: qwen2.5-coder through Ollama,
 * Llama 3 without its python tag, many fine-tunes. `{"name":…, "arguments":…}`,
 * `{"function":{…}}`, a list of them, several back to back, bare or in a ```json
 * fence. These are `kind: 'json'`: the same JSON appears in explanations, so
 * `../index.ts` counts them only when the answer is nothing but the calls.
 *
 * Only top-level JSON values are read: an object that merely contains a call-shaped
 * object (an API response, a `tools` array) is skipped whole.
 */

const FENCE =
  /^ {0,3}(`{3,})[ \t]*(json5?|jsonc|tool_calls?|tool_code|function_calls?)?[ \t]*\n([\s\S]*?)\n {0,3}\1[ \t]*$/gm

const BARE = { requireArguments: true }

function parse(text: string): { spans: Span[]; broken: [] } {
  const spans: Span[] = []
  const balance = budgetedBalance()
  const fences: Array<[number, number]> = []
  for (const m of text.matchAll(FENCE)) {
    const end = m.index + m[0].length
    fences.push([m.index, end])
    const body = m[3]
    const bodyStart = m.index + m[0].indexOf('\n') + 1
    const first = body.search(/\S/)
    if (first < 0) continue
    const run = callRun(text, bodyStart + first, BARE, balance)
    if (run && text.slice(run.end, bodyStart + body.length).trim() === '')
      spans.push({ start: m.index, end, calls: run.calls, kind: 'json' })
  }
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c !== '{' && c !== '[') {
      i++
      continue
    }
    const fence = fences.find(([s, e]) => i >= s && i < e && spans.some((sp) => sp.start === s))
    if (fence) {
      i = fence[1]
      continue
    }
    const close = balance(text, i)
    if (close < 0) {
      i++
      continue
    }
    const run = callRun(text, i, BARE, balance)
    if (run) {
      spans.push({ start: i, end: run.end, calls: run.calls, kind: 'json' })
      i = run.end
    } else i = close // a value that is not a call: nothing inside it is one either
  }
  return { spans, broken: [] }
}

export const json: ToolCallFamily = {
  id: 'json',
  models: 'qwen2.5-coder (through Ollama), Llama 3 without its python tag, and many fine-tunes',
  detect: (text) => /"(?:name|function)"\s*:/.test(text),
  parse,
  example: '{"name": "read_file", "arguments": {"path": "src/index.ts"}}',
}
