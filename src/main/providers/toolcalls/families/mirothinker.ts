import { parseJsonLoose } from '../json-scan'
import type { RawCall, ToolCallFamily } from '../types'
import { parseTagBlocks, quote } from './markup-util'

/*
 * MiroThinker (its chat template in llama.cpp's models/templates/MiroThinker-v1.jinja):
 * MCP-style blocks,
 *   <use_mcp_tool>
 *   <server_name>generic-extras</server_name>
 *   <tool_name>read_file</tool_name>
 *   <arguments>
 *   {"path": "a.ts"}
 *   </arguments>
 *   </use_mcp_tool>
 * one or more calls per block. The server name only routes the call upstream; the tool
 * name is what runs here. A block never closed is reported: the model was cut off.
 */

const OPEN = '<use_mcp_tool>'
const CLOSE = '</use_mcp_tool>'
const CALL =
  /(?:<server_name>[\s\S]*?<\/server_name>\s*)?<tool_name>([\s\S]*?)<\/tool_name>\s*(?:<arguments>([\s\S]*?)<\/arguments>)?/g

function readBody(body: string): RawCall[] | string {
  const calls: RawCall[] = []
  let problem: string | undefined
  const rest = body.replace(CALL, (_all, name: string, args: string | undefined) => {
    const tool = name.trim()
    const parsed = args === undefined || args.trim() === '' ? undefined : parseJsonLoose(args.trim())
    if (!tool) problem ??= 'a <tool_name> is empty'
    else if (parsed && !parsed.ok) problem ??= `the <arguments> of ${tool} do not parse (${parsed.error})`
    else calls.push({ name: tool, arguments: parsed?.ok ? parsed.value : {} })
    return ''
  })
  if (problem) return problem
  if (rest.trim() !== '') return `unexpected text ${JSON.stringify(quote(rest))} in ${OPEN}`
  return calls.length > 0 ? calls : `the ${OPEN} block names no tool`
}

export const mirothinker: ToolCallFamily = {
  id: 'mirothinker',
  models: 'MiroThinker (<use_mcp_tool>)',
  detect: (text) => text.includes(OPEN),
  parse: (text) => parseTagBlocks(text, OPEN, CLOSE, readBody),
  example: `${OPEN}\n<server_name>stepwise</server_name>\n<tool_name>read_file</tool_name>\n<arguments>\n{"path": "src/main.ts"}\n</arguments>\n${CLOSE}`,
}
