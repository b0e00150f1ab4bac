import { parseJsonLoose } from '../json-scan'
import { callsFromValue } from '../json-scan'
import type { RawCall, ToolCallFamily } from '../types'
import { attribute, parseTagBlocks, quote } from './markup-util'

/*
 * dots (vLLM's dots_tool_parser): `<dots_function_call>` blocks holding XML invokes,
 *   <dots_function_call><invoke name="read_file"><parameter name="path">a.ts</parameter></invoke></dots_function_call>
 * (several invokes per block), or one `{"name", "arguments"}` JSON call. Values are text;
 * `../index.ts` converts them to the schema's types. A block that is neither is reported.
 */

const OPEN = '<dots_function_call>'
const CLOSE = '</dots_function_call>'
const INVOKE = /<invoke\b([^>]*)>([\s\S]*?)<\/invoke>/g
const PARAM = /<parameter\b([^>]*)>([\s\S]*?)<\/parameter>/g

function readBody(body: string): RawCall[] | string {
  const trimmed = body.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = parseJsonLoose(trimmed)
    const calls = parsed.ok ? callsFromValue(parsed.value) : undefined
    return calls ?? `the JSON in ${OPEN} is not a {"name", "arguments"} call`
  }
  const calls: RawCall[] = []
  let problem: string | undefined
  const rest = trimmed.replace(INVOKE, (_all, attrs: string, inner: string) => {
    const name = attribute(attrs, 'name')?.trim()
    const args: Record<string, string> = {}
    const left = inner.replace(PARAM, (_p, pattrs: string, value: string) => {
      const key = attribute(pattrs, 'name')
      if (key) args[key] = value
      return ''
    })
    if (!name) problem ??= 'an <invoke> has no name'
    else if (left.trim() !== '')
      problem ??= `unexpected text ${JSON.stringify(quote(left))} in the call to ${name}`
    else calls.push({ name, arguments: args })
    return ''
  })
  if (problem) return problem
  if (rest.trim() !== '') return `unexpected text ${JSON.stringify(quote(rest))} in ${OPEN}`
  return calls.length > 0 ? calls : `the ${OPEN} block holds no call`
}

export const dots: ToolCallFamily = {
  id: 'dots',
  models: 'dots (<dots_function_call>)',
  detect: (text) => text.includes(OPEN),
  parse: (text) => parseTagBlocks(text, OPEN, CLOSE, readBody),
  example: `${OPEN}<invoke name="read_file"><parameter name="path">src/main.ts</parameter></invoke>${CLOSE}`,
}
