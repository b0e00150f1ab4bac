import { isObject, parseJson } from '../json-scan'
import type { FamilyResult, RawCall, ToolCallFamily } from '../types'

/*
 * CWM (vLLM's cwm parser, "Cursor-style" tags): the tool's name, then its input,
 *   <tool: function>
 *   run_command find . -name "*.py"
 *   </tool>
 * The tag's label is informational. What follows the name is the arguments when it is
 * a JSON object, else the text of a `command` argument (upstream's rule). A block never
 * closed is reported: the model was cut off.
 */

const BLOCK = /<tool:\s*([^>\s]+)\s*>([\s\S]*?)(<\/tool>|(?=<tool:)|$)/gi

function readBody(body: string): RawCall | string {
  const text = body.trim()
  const name = /^\S+/.exec(text)?.[0]
  if (!name) return 'a <tool: …> block is empty'
  const rest = text.slice(name.length).trim()
  if (rest.startsWith('{')) {
    const parsed = parseJson(rest)
    if (parsed.ok && isObject(parsed.value)) return { name, arguments: parsed.value }
  }
  return { name, arguments: rest === '' ? {} : { command: rest } }
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (const m of text.matchAll(BLOCK)) {
    const end = m.index + m[0].length
    if (!m[3]) {
      out.broken.push({
        start: m.index,
        end,
        problem: `the <tool: ${m[1]}> block is not closed with </tool>`,
      })
      continue
    }
    const read = readBody(m[2])
    if (typeof read === 'string') out.broken.push({ start: m.index, end, problem: read })
    else out.spans.push({ start: m.index, end, calls: [read], kind: 'markup' })
  }
  return out
}

export const cwm: ToolCallFamily = {
  id: 'cwm',
  models: 'CWM (<tool: function> blocks)',
  detect: (text) => /<tool:\s*[^>\s]+\s*>/i.test(text),
  parse,
  example: '<tool: function>\nrun_command ls src\n</tool>',
}
