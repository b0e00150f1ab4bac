import type { ToolCall } from '../../shared/protocol'
import { parseJsonOrUndefined } from '../../shared/records'
import type { ToolSpec } from '../../shared/tool-spec'
import { applyTextToolCalls, readToolCalls, type TextToolCalls } from './toolcalls'
import type { ModelTurn } from './types'

/**
 * Tool calls written as text, for models without native calling or whose server-side
 * parser missed them (docs/model-protocols.md#tool-calls-written-as-text). The pipeline lives in `toolcalls/`: every
 * format family, reasoning removed first, calls checked against the offered tools
 * and their schemas, examples told apart from acts. Returns the calls, the text left
 * for the user (exactly the model's text when nothing runs), and any call markup
 * that could not be read.
 */
export function parseTextToolCalls(text: string, tools: readonly ToolSpec[]): TextToolCalls {
  return readToolCalls(text, tools)
}

/**
 * Uses the pipeline on a finished turn that has text and no native calls: calls found
 * become the turn's calls; unreadable call markup becomes `toolCallRepair`.
 */
export function applyTextFallback(turn: ModelTurn, tools: readonly ToolSpec[]): ModelTurn {
  return applyTextToolCalls(turn, tools)
}

/** The system-prompt block for models without native tool calling (Hermes / Qwen format). */
export function textToolPrompt(tools: ToolSpec[]): string {
  const lines = tools.map((t) =>
    JSON.stringify({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }),
  )
  return [
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    '<tools>',
    ...lines,
    '</tools>',
    '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>',
    '{"name": <function-name>, "arguments": <args-json-object>}',
    '</tool_call>',
  ].join('\n')
}

/** An assistant's calls written back as text, for a transcript sent to a text-tools model. */
export function renderTextToolCalls(calls: ToolCall[]): string {
  return calls
    .map(
      (c) =>
        `<tool_call>\n{"name": ${JSON.stringify(c.name)}, "arguments": ${jsonOrString(c.arguments)}}\n</tool_call>`,
    )
    .join('\n')
}

/** A tool result as the user-turn text a text-tools model expects. */
export function renderToolResponse(output: string): string {
  return `<tool_response>\n${output}\n</tool_response>`
}

function jsonOrString(args: string): string {
  const parsed = parseJsonOrUndefined(args)
  return parsed === undefined ? JSON.stringify(args) : JSON.stringify(parsed)
}
