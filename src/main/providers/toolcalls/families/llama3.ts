import { budgetedBalance, callRun, skipSpace } from '../json-scan'
import type { BrokenSpan, Span, ToolCallFamily } from '../types'

/*
 * Llama 3.1/3.2/3.3 JSON tool calls: `{"name": …, "parameters": {…}}` (also
 * `"arguments"`, also `{"type": "function", "name": …}`), several separated by `;` or
 * newlines. After `<|python_tag|>` (the built-in tool mode, which some servers leave
 * in the text) it is markup; without it, the same JSON is how examples look, so it
 * is kind `json` (the bare form is also read by json.ts; `../index.ts` keeps one).
 */

const TAG = '<|python_tag|>'

function parse(text: string): { spans: Span[]; broken: BrokenSpan[] } {
  const spans: Span[] = []
  const broken: BrokenSpan[] = []
  const balance = budgetedBalance()
  for (let at = text.indexOf(TAG); at >= 0; at = text.indexOf(TAG, at + 1)) {
    const after = at + TAG.length
    const first = skipSpace(text, after)
    const run = callRun(text, first, {}, balance)
    if (run) {
      spans.push({ start: at, end: run.end, calls: run.calls, kind: 'markup' })
      continue
    }
    // Built-in tools (`brave_search.call(query="…")`) are not ours; only JSON that fails is broken.
    if (text[first] === '{') {
      const end = balance(text, first)
      broken.push({
        start: at,
        end: end < 0 ? text.length : end,
        problem:
          end < 0
            ? 'the JSON after <|python_tag|> is cut off'
            : 'the JSON after <|python_tag|> is not a {"name", "parameters"} call',
      })
    }
  }
  // Bare `{…}; {…}` runs that start a line (or the answer): the act rule decides in index.ts.
  for (const m of text.matchAll(/(?:^|\n)[ \t]*(?=\{)/g)) {
    const start = m.index + m[0].length
    if (spans.some((s) => start >= s.start && start < s.end)) continue
    const run = callRun(text, start, { requireArguments: true }, balance)
    if (run) spans.push({ start, end: run.end, calls: run.calls, kind: 'json' })
  }
  return { spans, broken }
}

export const llama3: ToolCallFamily = {
  id: 'llama3',
  models: 'Llama 3.1, 3.2, 3.3 (JSON tool calls, <|python_tag|>)',
  detect: (text) => text.includes(TAG) || /"(?:name|function)"\s*:/.test(text),
  parse,
  example: '{"name": "read_file", "parameters": {"path": "src/index.ts"}}',
}
