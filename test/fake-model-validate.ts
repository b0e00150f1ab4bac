/**
 * Request checks of the fake model server: it fails, as the real APIs do, on a tool
 * output with no matching call and on a call left unanswered (the bug class that
 * Codex's fake Responses server exists to catch). Each returns an HTTP error to send,
 * or undefined when the request is well formed.
 */

export interface FakeHttpError {
  status: number
  body: string
}

type Json = Record<string, unknown>

function openaiError(message: string, param: string | null, code: string | null = null): FakeHttpError {
  return {
    status: 400,
    body: JSON.stringify({ error: { message, type: 'invalid_request_error', param, code } }),
  }
}

/** The calls of each response this server produced, by response id. */
export type ResponseCalls = Map<string, string[]>

export function validateResponses(
  body: Json,
  responses: ResponseCalls,
  forgetResponses: boolean,
): FakeHttpError | undefined {
  const input = Array.isArray(body.input) ? (body.input as Json[]) : []
  const roleTool = input.findIndex((item) => item?.role === 'tool')
  if (roleTool !== -1) {
    return openaiError(
      "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
      `input[${roleTool}].role`,
      'invalid_value',
    )
  }
  let previousCalls: string[] = []
  const prev = body.previous_response_id
  if (typeof prev === 'string') {
    const calls = forgetResponses ? undefined : responses.get(prev)
    if (!calls)
      return openaiError(
        `Previous response with id '${prev}' not found.`,
        'previous_response_id',
        'previous_response_not_found',
      )
    previousCalls = calls
  }
  const inputCalls = input.filter((i) => i?.type === 'function_call').map((i) => String(i.call_id))
  const outputs = input.filter((i) => i?.type === 'function_call_output').map((i) => String(i.call_id))
  for (const id of outputs) {
    if (!previousCalls.includes(id) && !inputCalls.includes(id)) {
      return openaiError(`No tool call found for function call output with call_id ${id}.`, 'input')
    }
  }
  for (const id of [...previousCalls, ...inputCalls]) {
    if (!outputs.includes(id)) return openaiError(`No tool output found for function call ${id}.`, 'input')
  }
  return undefined
}

export function validateChat(body: Json): FakeHttpError | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : []
  let open: string[] = [] // ids of the current assistant's calls still waiting for a tool message
  let callsOfLastAssistant: string[] = []
  for (const [i, m] of messages.entries()) {
    if (m?.role === 'tool') {
      const id = String(m.tool_call_id)
      if (!callsOfLastAssistant.includes(id)) {
        return openaiError(
          `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'. No tool call found for function call output with call_id ${id}.`,
          `messages.[${i}].role`,
        )
      }
      open = open.filter((x) => x !== id)
      continue
    }
    if (open.length > 0) {
      return openaiError(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`,
        'messages',
      )
    }
    callsOfLastAssistant = []
    if (m?.role === 'assistant' && Array.isArray(m.tool_calls)) {
      callsOfLastAssistant = (m.tool_calls as Json[]).map((c) => String(c?.id))
      open = [...callsOfLastAssistant]
    }
  }
  if (open.length > 0) {
    return openaiError(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`,
      'messages',
    )
  }
  return undefined
}

export function validateOllama(body: Json, capabilities: string[]): FakeHttpError | undefined {
  if (Array.isArray(body.tools) && body.tools.length > 0 && !capabilities.includes('tools')) {
    return {
      status: 400,
      body: JSON.stringify({
        error: `registry.ollama.ai/library/${String(body.model)} does not support tools`,
      }),
    }
  }
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : []
  let afterCalls = false
  for (const m of messages) {
    if (m?.role === 'tool') {
      if (!afterCalls)
        return {
          status: 400,
          body: JSON.stringify({ error: 'a tool message must follow an assistant message with tool_calls' }),
        }
      continue
    }
    afterCalls = m?.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0
  }
  return undefined
}
