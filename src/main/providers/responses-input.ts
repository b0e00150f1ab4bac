import type { ToolSpec } from '../../shared/tool-spec'
import { normalizeTranscript } from './transcript'
import type { TranscriptItem } from './types'

/**
 * Transcript → Responses API `input` (docs/model-protocols.md#responses-requests). Two shapes:
 * - chained: `previous_response_id` of the last assistant turn, then one
 *   `function_call_output` per call of that response (and any new user text);
 * - stateless: the whole history, each `function_call` item replayed before its output.
 * `role:"tool"` does not exist in this API.
 */

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

export function buildResponsesInput(raw: TranscriptItem[], stateless: boolean): ResponsesInput {
  const transcript = normalizeTranscript(raw)
  const from = stateless ? undefined : chainFrom(transcript)
  if (from) {
    const after = transcript.slice(transcript.lastIndexOf(from) + 1)
    const input: unknown[] = outputsFor(after)
    for (const item of after) if (item.role === 'user') input.push({ role: 'user', content: item.text })
    return { input, previousResponseId: from.responseId }
  }
  return { input: fullHistory(transcript) }
}

/** The results right after the chained turn: normalized, one per call, in call order. */
function outputsFor(items: TranscriptItem[]): unknown[] {
  const input: unknown[] = []
  for (const item of items) {
    if (item.role !== 'tool') break
    input.push({ type: 'function_call_output', call_id: item.callId, output: item.output })
  }
  return input
}

function fullHistory(transcript: TranscriptItem[]): unknown[] {
  return transcript.flatMap((item): unknown[] => {
    if (item.role === 'user') return [{ role: 'user', content: item.text }]
    if (item.role === 'tool')
      return [{ type: 'function_call_output', call_id: item.callId, output: item.output }]
    return [
      ...(item.text ? [{ role: 'assistant', content: item.text }] : []),
      ...item.toolCalls.map((call) => ({
        type: 'function_call',
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
      })),
    ]
  })
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
