import type { ProviderId, Usage } from '../../shared/protocol'
import type { ToolSpec } from '../../shared/tool-spec'
import { isRecord, parseJsonOrUndefined, recordOf } from '../../shared/records'
import { ChatToolCallAccumulator } from './chat-accumulator'
import { badResponse, errorFromPayload, payloadFromValue } from './errors'
import { joinUrl, postStreaming } from './http'
import { streamLimits, type StreamLimits } from './limits'
import { SseParser, type SseEvent } from './sse'
import { applyTextFallback } from './text-fallback'
import { normalizeTranscript } from './transcript'
import {
  ProviderError,
  type ModelOptions,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type StreamHandlers,
  type TranscriptItem,
} from './types'

/**
 * Chat Completions (`openai-chat`): OpenAI, LM Studio, vLLM, llama.cpp, OpenRouter,
 * Ollama /v1 (docs/model-protocols.md#chat-completions). Raw SSE with our own accumulator; tolerant framing
 * (comments, CRLF, `data:` without a space, llama.cpp `error:` lines, no `[DONE]`).
 */
export class OpenAIChatProvider implements ModelProvider {
  /** `openai-chat`, or the id of another provider that speaks Chat Completions (options.id). */
  readonly id: ProviderId

  constructor(
    readonly model: string,
    readonly baseUrl: string,
    private readonly apiKey?: string,
    private readonly options: Omit<ModelOptions, 'maxNumCtx'> & { id?: ProviderId } = {},
  ) {
    this.id = options.id ?? 'openai-chat'
    this.limits = streamLimits(options)
  }

  private readonly limits: StreamLimits

  /** The window the user said the server runs with (the server fixes it; we only stay within it). */
  async contextWindow(): Promise<number | undefined> {
    return this.options.numCtx
  }

  async streamTurn(request: ModelRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ModelTurn> {
    const body: Record<string, unknown> = {
      model: this.model,
      stream: true,
      stream_options: { include_usage: true },
      messages: chatMessages(request.system, request.transcript),
    }
    if (this.options.temperature !== undefined) body.temperature = this.options.temperature
    // Sent only when the user set it: OpenAI and vLLM answer 400 to a value above the model's
    // limit (limits.ts). OpenAI's own API takes max_completion_tokens (its reasoning models
    // refuse max_tokens); compatible servers (llama.cpp, LM Studio, vLLM, Ollama) read max_tokens.
    if (this.limits.maxOutputTokensSet)
      body[isOpenAIHost(this.baseUrl) ? 'max_completion_tokens' : 'max_tokens'] = this.limits.maxOutputTokens
    if (request.tools.length > 0) body.tools = chatTools(request.tools)

    const state = new ChatStreamState(handlers)
    const received = await postStreaming(
      {
        provider: this.id,
        url: joinUrl(this.baseUrl, 'chat/completions'),
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

export function chatTools(tools: ToolSpec[]): unknown[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }))
}

/**
 * Transcript → messages. Servers want every tool call answered by exactly one
 * `role:"tool"` message right after its assistant message: the normalized
 * transcript is in that shape already (transcript.ts).
 */
export function chatMessages(system: string, transcript: TranscriptItem[]): unknown[] {
  const messages: unknown[] = system ? [{ role: 'system', content: system }] : []
  for (const item of normalizeTranscript(transcript)) {
    if (item.role === 'user') messages.push({ role: 'user', content: item.text })
    else if (item.role === 'tool')
      messages.push({ role: 'tool', tool_call_id: item.callId, content: item.output })
    else {
      const msg: Record<string, unknown> = {
        role: 'assistant',
        content: item.text || (item.toolCalls.length > 0 ? null : ''),
      }
      if (item.toolCalls.length > 0) {
        msg.tool_calls = item.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        }))
      }
      messages.push(msg)
    }
  }
  return messages
}

class ChatStreamState {
  private readonly calls = new ChatToolCallAccumulator()
  private text = ''
  private usage: Usage = { inputTokens: 0, outputTokens: 0 }
  private finishReason: string | undefined
  private deltas = 0
  private events = 0
  private done = false

  constructor(private readonly handlers: Pick<StreamHandlers, 'onText' | 'onToolCall'>) {}

  handle(event: SseEvent): void {
    if (this.done) return // events after [DONE] are ignored
    if (event.error !== undefined) {
      // llama.cpp 2025 builds: `error: {…}` at HTTP 200 (the SDKs drop it silently).
      throw errorFromPayload(payloadFromValue(parseJsonOrUndefined(event.error)) ?? { message: event.error })
    }
    if (event.data.trim() === '') return
    this.events++
    if (event.data.trim() === '[DONE]') {
      this.done = true
      return
    }
    const parsed = parseJsonOrUndefined(event.data)
    if (!parsed || typeof parsed !== 'object')
      throw badResponse('a malformed stream event (cut off mid-JSON?)', event.data)
    const chunk = recordOf(parsed) // an array carries no field we read, as before
    if (chunk.error) throw errorFromPayload(payloadFromValue(chunk) ?? { message: event.data })
    const usage = chunk.usage
    if (isRecord(usage)) {
      this.usage = {
        inputTokens: typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0,
        outputTokens: typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0,
      }
    }
    const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined
    if (!isRecord(choice)) return
    const delta = recordOf(choice.delta)
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.deltas++
      this.text += delta.content
      this.handlers.onText(delta.content)
    }
    if (typeof delta.reasoning === 'string' || typeof delta.reasoning_content === 'string') this.deltas++
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        if (isRecord(tc)) {
          this.deltas++
          const named = this.calls.push(tc)
          if (named) this.handlers.onToolCall?.(named)
        }
      }
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason)
      this.finishReason = choice.finish_reason
  }

  result(body: string): ModelTurn {
    if (this.events === 0) throw badResponse('no Chat Completions events', body)
    if (this.deltas === 0 && !this.finishReason) {
      // LM Studio answers a prompt larger than the loaded context this way (#2339).
      throw new ProviderError(
        'bad-response',
        'The model server ended the turn without sending anything (no text, no tool call, no finish reason). If it is LM Studio, the prompt may exceed the loaded context length.',
      )
    }
    const turn: ModelTurn = { text: this.text, toolCalls: this.calls.finish(), usage: this.usage }
    if (this.finishReason) turn.finishReason = this.finishReason
    return turn
  }
}

function isOpenAIHost(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com'
  } catch {
    return false
  }
}
