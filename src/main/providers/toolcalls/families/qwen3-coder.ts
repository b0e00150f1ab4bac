import { matchAt } from '../json-scan'
import type { BrokenSpan, Span, ToolCallFamily } from '../types'

/*
 * Qwen3-Coder and Qwen3.5: XML-ish calls,
 *   <tool_call>
 *   <function=read_file>
 *   <parameter=path>
 *   src/a.ts
 *   </parameter>
 *   </function>
 *   </tool_call>
 * with or without the `<tool_call>` wrapper, values over several lines (one newline
 * after the opening tag and one before the closing tag belong to the markup, as in
 * vLLM's parser), and closing tags missing when the stop token came early. Values
 * are text; `../index.ts` converts them to the schema's types (integers, booleans,
 * objects written as JSON). Llama 3.1's `<function=name>{json}</function>` is read too.
 */

const FUNCTION = /<function=([^>\n<]+)>/g
const END_OF_CALL = /<\/function>|<function=|<\/tool_call>|<tool_call>/g

function parse(text: string): { spans: Span[]; broken: BrokenSpan[] } {
  const spans: Span[] = []
  const broken: BrokenSpan[] = []
  let previous = 0
  for (const m of text.matchAll(FUNCTION)) {
    const bodyStart = m.index + m[0].length
    // Markup escaped inside a string (`"<function=f>\\n<parameter=…"` in JSON) is text, not a call.
    if (text.startsWith('\\n<', bodyStart)) continue
    END_OF_CALL.lastIndex = bodyStart
    const stop = END_OF_CALL.exec(text)
    const bodyEnd = stop ? stop.index : text.length
    let end = stop && stop[0] === '</function>' ? stop.index + stop[0].length : bodyEnd
    const body = text.slice(bodyStart, bodyEnd)
    let args: Record<string, string> | string = {}
    // Llama 3.1's `<function=name>{json}</function>` shares the tag: its body is the arguments.
    if (body.trim().startsWith('{')) args = body.trim()
    for (const p of body.matchAll(/<parameter=([^>\n]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g)) {
      if (typeof args === 'object') args[p[1].trim()] = p[2].replace(/^\r?\n/, '').replace(/\r?\n$/, '')
    }
    if (typeof args === 'object' && Object.keys(args).length === 0 && /<parameter/.test(body)) {
      broken.push({ start: m.index, end, problem: `the parameters of <function=${m[1]}> cannot be read` })
      continue
    }
    // The answer ended inside the call: right after the name (Ollama's qwen38 test "truncated
    // tool call") or inside a value (`<parameter=path>\nsrc/ma`): nothing says the call was whole,
    // and a value cut short must never run. A value closed by `</parameter>` is whole.
    if (!stop && typeof args === 'object' && !/<\/parameter>\s*$/.test(body)) {
      const where = body.trim() === '' ? 'after <function=…>' : 'inside its parameters'
      broken.push({ start: m.index, end, problem: `the call to ${m[1].trim()} is cut off ${where}` })
      continue
    }
    // The wrapper, when there is one, belongs to the call (the first and the last of its calls).
    // MiMo-V2-Flash may write parameters between the wrapper and `<function=…>` (vLLM's
    // test_mimov2_flash_tool_parser): they are the call's too.
    let start = m.index
    const lead = leadingParameters(text.slice(previous, start))
    previous = bodyEnd
    if (lead) {
      start -= lead.length
      if (typeof args === 'object') args = { ...lead.args, ...args }
    }
    const after = matchAt(/\s*<\/tool_call>/, text, end)
    if (after) end += after[0].length
    spans.push({ start, end, calls: [{ name: m[1].trim(), arguments: args }], kind: 'markup' })
  }
  // `<function=name` with no `>` (vLLM PR #36774): meant as a call, unreadable.
  for (const m of text.matchAll(/<function=[^>\n<]*(?:\n|(?=<))/g)) {
    const end = text.indexOf('</function>', m.index)
    broken.push({
      start: m.index,
      end: end < 0 ? m.index + m[0].length : end + '</function>'.length,
      problem: `the tag ${JSON.stringify(m[0].trim())} is not closed with ">"`,
    })
  }
  return { spans, broken }
}

/**
 * `<tool_call>` (and any complete `<parameter=…>` tags) right before a `<function=…>`:
 * how long that stretch is and the parameters in it. `before` runs from the previous call.
 */
function leadingParameters(before: string): { length: number; args: Record<string, string> } | undefined {
  const open = before.lastIndexOf('<tool_call>')
  if (open < 0) return undefined
  const between = before.slice(open + '<tool_call>'.length)
  const args: Record<string, string> = {}
  const rest = between.replace(
    /<parameter=([^>\n]+)>([\s\S]*?)<\/parameter>/g,
    (_all, key: string, value: string) => {
      args[key.trim()] = value.replace(/^\r?\n/, '').replace(/\r?\n$/, '')
      return ''
    },
  )
  return rest.trim() === '' ? { length: before.length - open, args } : undefined
}

export const qwen3Coder: ToolCallFamily = {
  id: 'qwen3-coder',
  models: 'Qwen3-Coder, Qwen3.5 (XML <function=…><parameter=…>)',
  detect: (text) => text.includes('<function='),
  parse,
  example:
    '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/index.ts\n</parameter>\n</function>\n</tool_call>',
}
