import type { ToolCallFamily } from '../types'
import { callsAt, markerBlocks } from './json-at'

/*
 * Meituan LongCat: Hermes's JSON in its own tags,
 * `<longcat_tool_call>{"name": …, "arguments": …}</longcat_tool_call>`, one block per call.
 */

const OPEN = '<longcat_tool_call>'
const CLOSE = '</longcat_tool_call>'

export const longcat: ToolCallFamily = {
  id: 'longcat',
  models: 'LongCat (Meituan)',
  detect: (text) => text.includes(OPEN),
  parse: (text) =>
    markerBlocks(text, { open: OPEN, close: CLOSE, what: 'the JSON' }, (from, balance) =>
      callsAt(text, from, balance),
    ),
  example:
    '<longcat_tool_call>{"name": "read_file", "arguments": {"path": "src/main.ts"}}</longcat_tool_call>',
}
