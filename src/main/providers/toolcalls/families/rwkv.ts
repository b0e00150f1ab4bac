import { callsFromValue, parseJsonLoose } from '../json-scan'
import type { FamilyResult, ToolCallFamily } from '../types'

/*
 * RWKV (vLLM's rwkv_tool_parser): a bold marker line, then the call as fenced JSON,
 *   **Tool Call:**
 *   ```json
 *   {"name": "read_file", "arguments": {"path": "a.ts"}}
 *   ```
 * one block per call. The marker is the model's own, so the fence is its act; a fence
 * without the marker is left to the JSON rules of `../index.ts`.
 */

const BLOCK =
  /\*\*Tool Call:\*\*[ \t]*\n[ \t]*```(?:json)?[ \t]*\n([\s\S]*?)\n[ \t]*```|\*\*Tool Call:\*\*[ \t]*\n[ \t]*```(?:json)?[ \t]*\n[\s\S]*$/g

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (const m of text.matchAll(BLOCK)) {
    const start = m.index
    const end = start + m[0].length
    if (m[1] === undefined) {
      out.broken.push({ start, end, problem: 'the fenced JSON after **Tool Call:** is never closed' })
      continue
    }
    const parsed = parseJsonLoose(m[1].trim())
    const calls = parsed.ok ? callsFromValue(parsed.value) : undefined
    if (calls) out.spans.push({ start, end, calls, kind: 'markup' })
    else
      out.broken.push({
        start,
        end,
        problem: parsed.ok
          ? 'the JSON after **Tool Call:** has no "name" and "arguments"'
          : `the JSON after **Tool Call:** does not parse (${parsed.error})`,
      })
  }
  return out
}

export const rwkv: ToolCallFamily = {
  id: 'rwkv',
  models: 'RWKV (**Tool Call:** and fenced JSON)',
  detect: (text) => text.includes('**Tool Call:**'),
  parse,
  example: '**Tool Call:**\n```json\n{"name": "read_file", "arguments": {"path": "src/main.ts"}}\n```',
}
