import type { ToolCall } from '../../shared/protocol'
import type { ToolSpec } from '../../shared/tool-spec'
import type { TranscriptItem } from './types'

/**
 * Transcript → Responses API `input` (docs/model-protocols.md#responses-requests). Two shapes:
 * - chained: `previous_response_id` of the last assistant turn, then one
 *   `function_call_output` per call of that response (and any new user text);
 * - stateless: the whole history, each `function_call` item replayed before its output.
 * `role:"tool"` does not exist in this API.
 */

/** Sent for a call that has no recorded output (e.g. the run was interrupted), so no call goes unanswered. */
export const MISSING_OUTPUT = JSON.stringify({ ok: false, error: 'This tool call was not run.' })

export interface ResponsesInput {
  input: unknown[]
  previousResponseId?: string
}

/** The assistant item a chained request would continue from, if the transcript allows chaining. */
export function chainFrom(
  transcript: TranscriptItem[],
): Extract<TranscriptItem, { role: 'assistant' }> | undefined {
  for (let i = transcript.length - 1; i >= 0; i--) {
    const item = transcript[i]
    if (item.role === 'assistant') return item.responseId ? item : undefined
  }
  return undefined
}

export function buildResponsesInput(transcript: TranscriptItem[], stateless: boolean): ResponsesInput {
  const from = stateless ? undefined : chainFrom(transcript)
  if (from) {
    const after = transcript.slice(transcript.lastIndexOf(from) + 1)
    const input: unknown[] = outputsFor(from.toolCalls, after)
    for (const item of after) if (item.role === 'user') input.push({ role: 'user', content: item.text })
    return { input, previousResponseId: from.responseId }
  }
  return { input: fullHistory(transcript) }
}

function outputsFor(calls: ToolCall[], items: TranscriptItem[]): unknown[] {
  return calls.map((call) => {
    const result = items.find((i) => i.role === 'tool' && i.callId === call.id)
    return {
      type: 'function_call_output',
      call_id: call.id,
      output: result?.role === 'tool' ? result.output : MISSING_OUTPUT,
    }
  })
}

function fullHistory(transcript: TranscriptItem[]): unknown[] {
  const input: unknown[] = []
  let pending: ToolCall[] = []
  const answered = new Set<string>()
  const flush = () => {
    for (const call of pending) {
      if (!answered.has(call.id))
        input.push({ type: 'function_call_output', call_id: call.id, output: MISSING_OUTPUT })
    }
    pending = []
  }
  for (const item of transcript) {
    if (item.role === 'user') {
      flush()
      input.push({ role: 'user', content: item.text })
    } else if (item.role === 'assistant') {
      flush()
      if (item.text) input.push({ role: 'assistant', content: item.text })
      for (const call of item.toolCalls) {
        input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments })
      }
      pending = item.toolCalls
    } else if (pending.some((c) => c.id === item.callId) && !answered.has(item.callId)) {
      answered.add(item.callId)
      input.push({ type: 'function_call_output', call_id: item.callId, output: item.output })
    }
    // A tool result with no matching call is dropped: the server would reject it.
  }
  flush()
  return input
}

/** Responses tools are flat. `strict:false` because our schemas have optional fields. */
export function responsesTools(tools: ToolSpec[]): unknown[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }))
}
