import type { ToolCall, Usage } from '../../shared/protocol'
import type { ToolSpec } from '../../shared/tool-spec'
import { badResponse, errorFromPayload, payloadFromValue } from './errors'
import { joinUrl, postStreaming, requestJson } from './http'
import { streamLimits, type StreamLimits } from './limits'
import { newCallId } from './ids'
import { parseJsonObject, recordOf } from '../../shared/records'
import { NdjsonParser } from './ndjson'
import { applyTextFallback, renderTextToolCalls, renderToolResponse, textToolPrompt } from './text-fallback'
import { normalizeTranscript } from './transcript'
import {
  ProviderError,
  type ModelInfo,
  type ModelOptions,
  type ModelProvider,
  type ModelRequest,
  type ModelTurn,
  type StreamHandlers,
  type TranscriptItem,
} from './types'

/** Used when /api/show cannot tell the window. Ollama's own default (4k) is too small for an agent. */
export const DEFAULT_NUM_CTX = 8192
/** A model may advertise 128k+; allocating that much KV cache on a laptop is not sane by default. */
export const MAX_AUTO_NUM_CTX = 32768

/**
 * Ollama native `/api/chat` (docs/model-protocols.md#ollama-native-api). `num_ctx` is always sent: the server's
 * default window silently truncates agent prompts. Tool calls arrive whole, in
 * done:false chunks or in the done:true chunk, and are appended (never merged by
 * index). Models without the "tools" capability get the text tool protocol instead.
 */
export class OllamaProvider implements ModelProvider {
  readonly id = 'ollama' as const
  private info: ModelInfo | undefined
  /** Set once the server said "does not support tools" for this model. */
  private textTools = false

  constructor(
    readonly model: string,
    readonly baseUrl: string,
    private readonly numCtx?: number,
    private readonly options: Omit<ModelOptions, 'numCtx'> = {},
  ) {
    this.limits = streamLimits(options)
  }

  private readonly limits: StreamLimits

  async describe(signal?: AbortSignal): Promise<ModelInfo> {
    const show = recordOf(
      await requestJson({
        provider: this.id,
        url: joinUrl(this.baseUrl, 'api/show'),
        method: 'POST',
        body: { model: this.model },
        signal,
        limits: this.limits,
      }),
    )
    const info: ModelInfo = {}
    const modelInfo = recordOf(show.model_info)
    const arch = modelInfo['general.architecture']
    const ctx = typeof arch === 'string' ? modelInfo[`${arch}.context_length`] : undefined
    if (typeof ctx === 'number' && ctx > 0) info.contextLength = ctx
    if (Array.isArray(show.capabilities))
      info.capabilities = show.capabilities.filter((c): c is string => typeof c === 'string')
    return info
  }

  /** Installed models, from GET /api/tags. */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    const tags = recordOf(
      await requestJson({
        provider: this.id,
        url: joinUrl(this.baseUrl, 'api/tags'),
        method: 'GET',
        signal,
        limits: this.limits,
      }),
    )
    const models: unknown[] = Array.isArray(tags.models) ? tags.models : []
    return models.map((m) => recordOf(m).name).filter((n): n is string => typeof n === 'string')
  }

  /**
   * The num_ctx every request sends: configured, else the model's own length up to the cap
   * (MAX_AUTO_NUM_CTX unless the user raised it), else the default.
   */
  async contextWindow(signal?: AbortSignal): Promise<number> {
    if (this.numCtx) return this.numCtx
    const info = await this.modelInfo(signal ?? new AbortController().signal)
    const cap = this.options.maxNumCtx ?? MAX_AUTO_NUM_CTX
    return info.contextLength ? Math.min(info.contextLength, cap) : Math.min(DEFAULT_NUM_CTX, cap)
  }

  async streamTurn(request: ModelRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ModelTurn> {
    const info = await this.modelInfo(signal)
    const numCtx = await this.contextWindow(signal)
    const hasTools = request.tools.length > 0
    const textMode =
      hasTools &&
      (this.textTools || (info.capabilities !== undefined && !info.capabilities.includes('tools')))
    try {
      return await this.attempt(request, handlers, signal, { numCtx, textMode })
    } catch (err) {
      if (
        hasTools &&
        !textMode &&
        err instanceof ProviderError &&
        /does not support tools/i.test(err.message)
      ) {
        this.textTools = true
        return await this.attempt(request, handlers, signal, { numCtx, textMode: true })
      }
      throw err
    }
  }

  /** /api/show, cached once it succeeds; failures fall back to defaults and /api/chat reports the real error. */
  private async modelInfo(signal: AbortSignal): Promise<ModelInfo> {
    if (this.info) return this.info
    try {
      this.info = await this.describe(signal)
      return this.info
    } catch (err) {
      if (signal.aborted) throw err
      return {}
    }
  }

  private async attempt(
    request: ModelRequest,
    handlers: StreamHandlers,
    signal: AbortSignal,
    /** The window sent as num_ctx, and whether tools are described in the prompt instead of sent natively. */
    { numCtx, textMode }: { numCtx: number; textMode: boolean },
  ): Promise<ModelTurn> {
    const body: Record<string, unknown> = {
      model: this.model,
      messages: textMode ? textModeMessages(request) : nativeMessages(request.system, request.transcript),
      stream: true,
      options: {
        num_ctx: numCtx,
        // Always sent: Ollama's default (-1) lets a looping model stream forever.
        num_predict: this.limits.maxOutputTokens,
        ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      },
    }
    if (!textMode && request.tools.length > 0) body.tools = ollamaTools(request.tools)

    const state = new OllamaStreamState(handlers)
    const received = await postStreaming(
      {
        provider: this.id,
        url: joinUrl(this.baseUrl, 'api/chat'),
        body,
        signal,
        onTraffic: handlers.onTraffic,
        limits: this.limits,
      },
      new NdjsonParser((line) => state.line(line)),
    )
    return applyTextFallback(state.result(received), request.tools)
  }
}

function ollamaTools(tools: ToolSpec[]): unknown[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }))
}

/** Ollama wants arguments as an object. */
function argsObject(args: string): Record<string, unknown> {
  return parseJsonObject(args) ?? {}
}

/** Transcript → messages; the normalized transcript answers every call right after its turn. */
export function nativeMessages(system: string, transcript: TranscriptItem[]): unknown[] {
  const messages: unknown[] = system ? [{ role: 'system', content: system }] : []
  for (const item of normalizeTranscript(transcript)) {
    if (item.role === 'user') messages.push({ role: 'user', content: item.text })
    else if (item.role === 'tool')
      messages.push({ role: 'tool', content: item.output, tool_name: item.name, tool_call_id: item.callId })
    else {
      const msg: Record<string, unknown> = { role: 'assistant', content: item.text }
      if (item.toolCalls.length > 0) {
        msg.tool_calls = item.toolCalls.map((c) => ({
          id: c.id,
          function: { name: c.name, arguments: argsObject(c.arguments) },
        }))
      }
      messages.push(msg)
    }
  }
  return messages
}

/**
 * The text tool protocol (Hermes/Qwen, docs/model-protocols.md#tool-calls-written-as-text): tools described in the system
 * prompt, calls written as `<tool_call>` blocks, results in a user turn as
 * `<tool_response>` blocks, consecutive results merged into one turn.
 */
function textModeMessages(request: ModelRequest): unknown[] {
  const system = [request.system, textToolPrompt(request.tools)].filter(Boolean).join('\n\n')
  const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: system }]
  let lastWasTool = false
  for (const item of normalizeTranscript(request.transcript)) {
    if (item.role === 'tool') {
      const block = renderToolResponse(item.output)
      const last = messages.at(-1)
      if (lastWasTool && last) last.content += `\n${block}`
      else messages.push({ role: 'user', content: block })
      lastWasTool = true
      continue
    }
    lastWasTool = false
    if (item.role === 'user') messages.push({ role: 'user', content: item.text })
    else
      messages.push({
        role: 'assistant',
        content: [item.text, renderTextToolCalls(item.toolCalls)].filter(Boolean).join('\n'),
      })
  }
  return messages
}

class OllamaStreamState {
  private text = ''
  private readonly calls: ToolCall[] = []
  private usage: Usage = { inputTokens: 0, outputTokens: 0 }
  private finishReason: string | undefined
  private lines = 0
  private done = false

  constructor(private readonly handlers: Pick<StreamHandlers, 'onText' | 'onToolCall'>) {}

  line(line: string): void {
    if (this.done) return // lines after done are ignored, as ollama-js does
    const obj = parseJsonObject(line)
    if (!obj) return // garbage lines are skipped (ollama-js warns and skips); a missing `done` still fails
    this.lines++
    if (obj.error !== undefined) throw errorFromPayload(payloadFromValue(obj) ?? { message: line }, 'server')
    const message = recordOf(obj.message)
    if (typeof message.content === 'string' && message.content !== '') {
      this.text += message.content
      this.handlers.onText(message.content)
    }
    if (Array.isArray(message.tool_calls)) {
      for (const raw of message.tool_calls) {
        const tc = recordOf(raw)
        const fn = recordOf(tc.function)
        const args = fn.arguments
        const name = typeof fn.name === 'string' ? fn.name : ''
        // A native call comes whole; it may still come before the turn's other calls and its end.
        if (name) this.handlers.onToolCall?.(name)
        this.calls.push({
          id: typeof tc.id === 'string' && tc.id ? tc.id : newCallId(),
          name,
          arguments: typeof args === 'string' ? args || '{}' : JSON.stringify(args ?? {}),
        })
      }
    }
    if (obj.done === true) {
      this.done = true
      this.usage = {
        inputTokens: typeof obj.prompt_eval_count === 'number' ? obj.prompt_eval_count : 0,
        outputTokens: typeof obj.eval_count === 'number' ? obj.eval_count : 0,
      }
      if (typeof obj.done_reason === 'string' && obj.done_reason) this.finishReason = obj.done_reason
    }
  }

  result(body: string): ModelTurn {
    if (this.lines === 0) throw badResponse('no Ollama chat lines', body)
    if (!this.done) throw badResponse('a stream that ended without its final "done" line', body.slice(-200))
    const turn: ModelTurn = { text: this.text, toolCalls: this.calls, usage: this.usage }
    if (this.finishReason) turn.finishReason = this.finishReason
    return turn
  }
}
