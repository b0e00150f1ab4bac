import type { ToolCallFamily } from '../types'
import { callsAt, markerBlocks } from './json-at'

/*
 * NVIDIA Nemotron (Llama-Nemotron, Nemotron Nano v2): `<TOOLCALL>[{"name":…,"arguments":…}]</TOOLCALL>`,
 * sometimes a single object instead of a list, arguments sometimes a JSON string.
 * Nemotron 3 Nano writes Qwen3-Coder XML inside `<tool_call>`; the qwen3-coder family reads that.
 */

const OPEN = '<TOOLCALL>'
const CLOSE = '</TOOLCALL>'

export const nemotron: ToolCallFamily = {
  id: 'nemotron',
  models: 'Llama-Nemotron, Nemotron Nano v2',
  detect: (text) => text.includes(OPEN),
  parse: (text) =>
    markerBlocks(text, { open: OPEN, close: CLOSE, what: 'the JSON' }, (from, balance) =>
      callsAt(text, from, balance),
    ),
  example: '<TOOLCALL>[{"name": "read_file", "arguments": {"path": "src/main.ts"}}]</TOOLCALL>',
}
