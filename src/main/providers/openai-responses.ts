import { isRecord, parseJsonOrUndefined, recordOf } from '../../shared/records'
import type { Usage } from '../../shared/protocol'
import { badResponse, errorFromPayload, payloadFromValue } from './errors'
import { joinUrl, postStreaming } from './http'
import { streamLimits, type StreamLimits } from './limits'
import { newCallId } from './ids'
import { buildResponsesInput, chainFrom, responsesTools } from './responses-input'
import { SseParser, type SseEvent } from './sse'
import { applyTextFallback } from './text-fallback'
import {
  ProviderError,
  type ModelOptions,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type StreamHandlers,
} from './types'

/**
 * OpenAI Responses API (`openai`), streamed (docs/model-protocols.md#responses-api). Items are keyed by
 * `output_index` (item ids rotate on some proxies); there is no `[DONE]`, the stream
 * ends at response.completed / incomplete / failed.
 */
export class OpenAIResponsesProvider implements ModelProvider {
  readonly id = 'openai' as const

  constructor(
    readonly model: string,
    readonly baseUrl: string,
    private readonly apiKey?: string,
    private readonly options: Omit<ModelOptions, 'maxNumCtx'> = {},
  ) {
    this.limits = streamLimits(options)
  }

  private readonly limits: StreamLimits

  /** The window the user said the server runs with (the server fixes it; we only stay within it). */
  async contextWindow(): Promise<number | undefined> {
    return this.options.numCtx
  }

  async streamTurn(request: ModelRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ModelTurn> {
    const chained = chainFrom(request.transcript) !== undefined
    try {
      return await this.attempt(request, handlers, signal, !chained)
    } catch (err) {
      // The server lost the chain (or disagrees about its calls): resend the whole
      // history once. A protocol recovery, not a retry (Roo-Code PR #7709).
      if (chained && isChainError(err)) return await this.attempt(request, handlers, signal, true)
      throw err
    }
  }

  private async attempt(
    request: ModelRequest,
    handlers: StreamHandlers,
    signal: AbortSignal,
    stateless: boolean,
  ): Promise<ModelTurn> {
    const { input, previousResponseId } = buildResponsesInput(request.transcript, stateless)
    const body: Record<string, unknown> = {
      model: this.model,
      stream: true,
      instructions: request.system,
      input,
    }
    if (this.options.temperature !== undefined) body.temperature = this.options.temperature
    // Sent only when the user set it: a value above the model's own limit is a 400 (limits.ts).
    if (this.limits.maxOutputTokensSet) body.max_output_tokens = this.limits.maxOutputTokens
    if (previousResponseId) body.previous_response_id = previousResponseId
    if (request.tools.length > 0) body.tools = responsesTools(request.tools)

    const state = new ResponsesStreamState(handlers)
    const received = await postStreaming(
      {
        provider: this.id,
        url: joinUrl(this.baseUrl, 'responses'),
        body,
        apiKey: this.apiKey,
        signal,
        onTraffic: handlers.onTraffic,
        limits: this.limits,
      },
      new SseParser((event) => state.handle(event)),
    )
    return applyTextFallback(state.result(received), request.tools)
  }
}

function isChainError(err: unknown): boolean {
  if (!(err instanceof ProviderError) || (err.kind !== 'bad-request' && err.kind !== 'not-found'))
    return false
  return (
    err.code === 'previous_response_not_found' ||
    /previous response|No tool output found|No tool call found/i.test(err.message)
  )
}

interface OutputItem {
  type?: string
  callId?: string
  name?: string
  args: string
  text: string
}

type Json = Record<string, unknown>

class ResponsesStreamState {
  private readonly items = new Map<number, OutputItem>()
  private responseId: string | undefined
  private usage: Usage = { inputTokens: 0, outputTokens: 0 }
  private finishReason: string | undefined
  private events = 0
  private terminal = false

  constructor(private readonly handlers: Pick<StreamHandlers, 'onText' | 'onToolCall'>) {}

  handle(event: SseEvent): void {
    if (event.error !== undefined)
      throw errorFromPayload(payloadFromValue(parseJsonOrUndefined(event.error)) ?? { message: event.error })
    if (event.data === '' || event.data === '[DONE]' || this.terminal) return
    const obj = parseJsonOrUndefined(event.data)
    if (!obj || typeof obj !== 'object') throw badResponse('a malformed stream event', event.data)
    const ev = recordOf(obj) // an array carries no field we read, as before
    this.events++
    const type = typeof ev.type === 'string' ? ev.type : event.event
    const index = typeof ev.output_index === 'number' ? ev.output_index : 0
    switch (type) {
      case 'error':
        throw errorFromPayload(payloadFromValue(ev) ?? { message: event.data })
      case 'response.failed': {
        const response = recordOf(ev.response)
        throw errorFromPayload(
          payloadFromValue({ error: response.error }) ?? { message: 'The response failed.' },
        )
      }
      case 'response.created':
      case 'response.in_progress':
        this.takeResponseId(ev.response)
        break
      case 'response.output_item.added':
      case 'response.output_item.done':
        this.takeItem(index, recordOf(ev.item))
        break
      case 'response.output_text.delta':
        if (typeof ev.delta === 'string') this.appendText(index, ev.delta)
        break
      case 'response.output_text.done':
        if (typeof ev.text === 'string' && this.item(index).text === '') this.appendText(index, ev.text)
        break
      case 'response.function_call_arguments.delta':
        if (typeof ev.delta === 'string') this.item(index).args += ev.delta
        break
      case 'response.function_call_arguments.done':
        if (typeof ev.arguments === 'string') this.item(index).args = ev.arguments
        break
      case 'response.completed':
      case 'response.incomplete':
        this.finish(ev, type === 'response.incomplete')
        break
    }
  }

  result(body: string): ModelTurn {
    if (this.events === 0) throw badResponse('no Responses API events', body)
    if (!this.terminal) throw badResponse('a stream that ended before response.completed', body.slice(-200))
    const ordered = [...this.items.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item)
    const turn: ModelTurn = {
      text: ordered.map((i) => i.text).join(''),
      toolCalls: ordered
        .filter((i) => i.type === 'function_call')
        .map((i) => ({
          id: i.callId || newCallId(),
          name: i.name ?? '',
          arguments: i.args.trim() === '' ? '{}' : i.args,
        })),
      usage: this.usage,
    }
    if (this.finishReason) turn.finishReason = this.finishReason
    if (this.responseId) turn.responseId = this.responseId
    return turn
  }

  private item(index: number): OutputItem {
    let item = this.items.get(index)
    if (!item) {
      item = { args: '', text: '' }
      this.items.set(index, item)
    }
    return item
  }

  private appendText(index: number, delta: string): void {
    const item = this.item(index)
    item.type ??= 'message'
    item.text += delta
    this.handlers.onText(delta)
  }

  /** output_item.added / .done (and response.completed's output): authoritative fields win. */
  private takeItem(index: number, raw: Json): void {
    const item = this.item(index)
    if (typeof raw.type === 'string') item.type = raw.type
    if (raw.type === 'function_call') {
      if (typeof raw.call_id === 'string' && raw.call_id) item.callId = raw.call_id
      if (typeof raw.name === 'string' && raw.name) {
        // output_item.added names the call before its arguments stream; .done and completed repeat it.
        if (item.name === undefined) this.handlers.onToolCall?.(raw.name)
        item.name = raw.name
      }
      if (typeof raw.arguments === 'string' && raw.arguments) item.args = raw.arguments
    } else if (raw.type === 'message' && item.text === '' && Array.isArray(raw.content)) {
      const text = raw.content
        .map((raw: unknown) => {
          const part = recordOf(raw)
          return part.type === 'output_text' && typeof part.text === 'string' ? part.text : ''
        })
        .join('')
      if (text) this.appendText(index, text)
    }
  }

  private takeResponseId(response: unknown): void {
    const id = recordOf(response).id
    if (typeof id === 'string') this.responseId = id
  }

  private finish(ev: Json, incomplete: boolean): void {
    const response = recordOf(ev.response)
    this.takeResponseId(response)
    if (Array.isArray(response.output)) response.output.forEach((raw, i) => this.takeItem(i, recordOf(raw)))
    const usage = response.usage
    if (isRecord(usage)) {
      this.usage = {
        inputTokens: typeof usage.input_tokens === 'number' ? usage.input_tokens : 0,
        outputTokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0,
      }
    }
    const reason = recordOf(response.incomplete_details).reason
    this.finishReason = incomplete ? (typeof reason === 'string' ? reason : 'incomplete') : 'completed'
    this.terminal = true
  }
}
