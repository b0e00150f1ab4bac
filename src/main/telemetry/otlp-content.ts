import type { EventOf } from '../../shared/protocol'

/**
 * The opt-in content of GenAI spans (`--include-content`,
 * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true): messages in the
 * conventions' JSON shape (`{role, parts: [{type, ...}]}`), as strings since span
 * attributes cannot nest. Never recorded unless the user asked: prompts, answers and
 * tool results hold the project's code.
 */

/** What reached the model since its previous call: the user's text and the tools' results. */
export type PendingInput =
  { kind: 'user'; text: string } | { kind: 'tool'; callId: string; result: Record<string, unknown> }

/**
 * `gen_ai.input.messages`: only the messages new to this call. The earlier ones sit on
 * the earlier chat spans of the same trace, so the whole transcript is not repeated
 * on every call (it would grow quadratically with the session).
 */
export function chatInputMessages(input: PendingInput[]): string {
  const messages = input.map((item) =>
    item.kind === 'user'
      ? { role: 'user', parts: [{ type: 'text', content: item.text }] }
      : { role: 'tool', parts: [{ type: 'tool_call_response', id: item.callId, response: item.result }] },
  )
  return JSON.stringify(messages)
}

/** `gen_ai.output.messages`: the answer's text and tool calls, with the finish reason. */
export function chatOutputMessages(message: EventOf<'assistant.message'>, finishReason: string): string {
  const parts: Record<string, unknown>[] = []
  if (message.text) parts.push({ type: 'text', content: message.text })
  for (const call of message.toolCalls) {
    let args: unknown = call.arguments
    try {
      args = JSON.parse(call.arguments)
    } catch {
      // Malformed arguments are kept as the model wrote them.
    }
    parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: args })
  }
  return JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReason }])
}

/** `gen_ai.tool.call.arguments` / `.result`: JSON text. */
export function toolContent(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}
