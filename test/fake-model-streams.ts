/**
 * Renders a scripted fake turn in each wire protocol's own streamed shape (see
 * fake-model-server.ts). Shapes follow the recorded streams in test/fixtures.
 */

export interface FakeToolCall {
  name: string
  /** An object (sent as JSON text, or as an object for Ollama) or the raw argument text. */
  arguments: object | string
  /** Defaults to `call_fake_<turn>_<i>`. */
  id?: string
}

export interface FakeScriptedTurn {
  text?: string
  toolCalls?: FakeToolCall[]
  usage?: { inputTokens: number; outputTokens: number }
  /** Wait this long before answering (paces a run, as a real model's latency would). */
  delayMs?: number
  /** Wait this long between the stream's events (a model writing its tokens); ignores `chunkBytes`. */
  paceMs?: number
}

export const DEFAULT_FAKE_USAGE = { inputTokens: 10, outputTokens: 5 }

/** Splits text into up to `n` pieces on code-point boundaries. */
export function splitText(text: string, n = 3): string[] {
  const chars = [...text]
  if (chars.length === 0) return []
  const size = Math.max(1, Math.ceil(chars.length / n))
  const out: string[] = []
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''))
  return out
}

export function argsText(args: object | string): string {
  return typeof args === 'string' ? args : JSON.stringify(args)
}

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`
}

/** Responses API events; returns the event texts (one TCP write each) and the call ids used. */
export function responsesStream(turn: FakeScriptedTurn, responseId: string, callIds: string[]): string[] {
  const usage = turn.usage ?? DEFAULT_FAKE_USAGE
  let seq = 0
  const out: string[] = []
  const emit = (type: string, fields: Record<string, unknown>) =>
    out.push(sse(type, { type, sequence_number: seq++, ...fields }))
  const base = {
    id: responseId,
    object: 'response',
    created_at: 1750000000,
    model: 'fake',
    error: null,
    incomplete_details: null,
  }
  emit('response.created', { response: { ...base, status: 'in_progress', output: [] } })
  emit('response.in_progress', { response: { ...base, status: 'in_progress', output: [] } })
  const output: unknown[] = []
  let index = 0
  if (turn.text) {
    const itemId = `msg_${responseId}`
    const part = { type: 'output_text', annotations: [], text: '' }
    emit('response.output_item.added', {
      output_index: index,
      item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    })
    emit('response.content_part.added', { item_id: itemId, output_index: index, content_index: 0, part })
    for (const delta of splitText(turn.text)) {
      emit('response.output_text.delta', {
        item_id: itemId,
        output_index: index,
        content_index: 0,
        delta,
        logprobs: [],
      })
    }
    emit('response.output_text.done', {
      item_id: itemId,
      output_index: index,
      content_index: 0,
      text: turn.text,
    })
    emit('response.content_part.done', {
      item_id: itemId,
      output_index: index,
      content_index: 0,
      part: { ...part, text: turn.text },
    })
    const item = {
      id: itemId,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ ...part, text: turn.text }],
    }
    emit('response.output_item.done', { output_index: index, item })
    output.push(item)
    index++
  }
  ;(turn.toolCalls ?? []).forEach((call, i) => {
    const itemId = `fc_${responseId}_${i}`
    const args = argsText(call.arguments)
    const item = {
      id: itemId,
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      call_id: callIds[i],
      name: call.name,
    }
    emit('response.output_item.added', { output_index: index, item })
    for (const delta of splitText(args, 2)) {
      emit('response.function_call_arguments.delta', { item_id: itemId, output_index: index, delta })
    }
    emit('response.function_call_arguments.done', { item_id: itemId, output_index: index, arguments: args })
    const done = { ...item, status: 'completed', arguments: args }
    emit('response.output_item.done', { output_index: index, item: done })
    output.push(done)
    index++
  })
  emit('response.completed', {
    response: {
      ...base,
      status: 'completed',
      output,
      usage: {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
      },
    },
  })
  return out
}

/** Chat Completions chunks, with the usage chunk and `[DONE]`. */
export function chatStream(turn: FakeScriptedTurn, callIds: string[]): string[] {
  const usage = turn.usage ?? DEFAULT_FAKE_USAGE
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    sse(undefined, {
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 1750000000,
      model: 'fake',
      choices,
      ...extra,
    })
  const choice = (delta: unknown, finish: string | null = null) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finish,
  })
  const out = [chunk([choice({ role: 'assistant', content: '' })])]
  for (const piece of splitText(turn.text ?? '')) out.push(chunk([choice({ content: piece })]))
  ;(turn.toolCalls ?? []).forEach((call, i) => {
    out.push(
      chunk([
        choice({
          tool_calls: [
            { index: i, id: callIds[i], type: 'function', function: { name: call.name, arguments: '' } },
          ],
        }),
      ]),
    )
    for (const part of splitText(argsText(call.arguments), 2)) {
      out.push(chunk([choice({ tool_calls: [{ index: i, function: { arguments: part } }] })]))
    }
  })
  out.push(chunk([choice({}, turn.toolCalls?.length ? 'tool_calls' : 'stop')]))
  out.push(
    chunk([], {
      usage: {
        prompt_tokens: usage.inputTokens,
        completion_tokens: usage.outputTokens,
        total_tokens: usage.inputTokens + usage.outputTokens,
      },
    }),
  )
  out.push('data: [DONE]\n\n')
  return out
}

/** Ollama /api/chat NDJSON lines; calls in a done:false chunk, metrics on the final line. */
export function ollamaStream(turn: FakeScriptedTurn, model: string, callIds: string[]): string[] {
  const usage = turn.usage ?? DEFAULT_FAKE_USAGE
  const line = (fields: Record<string, unknown>) =>
    `${JSON.stringify({ model, created_at: '2025-07-07T20:22:19.184789Z', ...fields })}\n`
  const out: string[] = []
  for (const piece of splitText(turn.text ?? ''))
    out.push(line({ message: { role: 'assistant', content: piece }, done: false }))
  const calls = turn.toolCalls ?? []
  if (calls.length > 0) {
    const toolCalls = calls.map((call, i) => ({
      id: callIds[i],
      function: {
        index: i,
        name: call.name,
        arguments: typeof call.arguments === 'string' ? JSON.parse(call.arguments || '{}') : call.arguments,
      },
    }))
    out.push(line({ message: { role: 'assistant', content: '', tool_calls: toolCalls }, done: false }))
  }
  out.push(
    line({
      message: { role: 'assistant', content: '' },
      done_reason: 'stop',
      done: true,
      total_duration: 1000,
      load_duration: 10,
      prompt_eval_count: usage.inputTokens,
      prompt_eval_duration: 100,
      eval_count: usage.outputTokens,
      eval_duration: 500,
    }),
  )
  return out
}

/** The first part of a valid stream, for `{ closeMidStream: true }`. */
export function partialStream(protocol: 'responses' | 'chat' | 'ollama'): string {
  if (protocol === 'responses')
    return responsesStream({ text: 'Hello there' }, 'resp_cut', []).slice(0, 4).join('')
  if (protocol === 'chat') return chatStream({ text: 'Hello there' }, []).slice(0, 2).join('')
  return ollamaStream({ text: 'Hello there' }, 'fake', []).slice(0, 1).join('')
}
