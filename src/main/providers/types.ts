import type { ProviderId, ToolCall, Usage } from '../../shared/protocol'
import type { ToolSpec } from '../../shared/tool-spec'
import type { TrafficEntry } from '../store/traffic-entry'

/**
 * A provider-neutral transcript, so the model can be switched mid-session.
 * Each adapter maps it to its own wire format, after `normalizeTranscript`
 * (transcript.ts) made every call answered once and every id unique.
 */
export type TranscriptItem =
  | { role: 'user'; text: string }
  | {
      role: 'assistant'
      text: string
      toolCalls: ToolCall[]
      responseId?: string
      /** A partly streamed answer whose turn never finished (providers/transcript.ts). */
      interrupted?: true
    }
  | { role: 'tool'; callId: string; name: string; output: string }

export interface ModelRequest {
  system: string
  transcript: TranscriptItem[]
  tools: ToolSpec[]
}

export interface ModelTurn {
  text: string
  toolCalls: ToolCall[]
  usage: Usage
  /** The server's finish reason, for the record only: tool calls are decided from `toolCalls`. */
  finishReason?: string
  /** Responses API id, used as `previous_response_id` on the next turn. */
  responseId?: string
  /** True when the calls were parsed out of the text (text fallback). */
  textToolCalls?: boolean
  /** Set when the text holds call markup that could not be used: the loop asks the model once to rewrite it. */
  toolCallRepair?: ToolCallRepair
}

/** What went wrong with calls written as text, and the format to use instead. */
export interface ToolCallRepair {
  /**
   * `unreadable` (the default): call markup that could not be read. `in-prose`: a well-formed
   * call to an offered tool inside other text, which is not run on its own (it may be an
   * example); the model is asked once to reply with only the call if it meant it.
   */
  kind?: 'unreadable' | 'in-prose'
  /** The tools an in-prose answer called. */
  tools?: string[]
  problem: string
  /** One call written in the expected format. */
  format: string
  /** The format family (`hermes`, `mistral`, …). */
  family: string
}

export type { TrafficEntry }

export interface StreamHandlers {
  onText(delta: string): void
  /**
   * A native call to `name` began streaming: its arguments are still to come. Once per call, as
   * soon as the wire names it. The loop starts what a command needs before it runs
   * (agent/tool-runner.ts `warm`; a call written as text is spotted there, from `onText`).
   */
  onToolCall?(name: string): void
  /** Every request and response body, for the raw traffic log. */
  onTraffic(entry: TrafficEntry): void
}

export interface ModelInfo {
  contextLength?: number
  /** e.g. `["completion","tools"]` from Ollama's /api/show. */
  capabilities?: string[]
}

export interface ModelProvider {
  readonly id: ProviderId
  readonly model: string
  readonly baseUrl: string
  /** One model turn, streamed. Throws `ProviderError` on failure; never retries itself. */
  streamTurn(request: ModelRequest, handlers: StreamHandlers, signal: AbortSignal): Promise<ModelTurn>
  /** Context length and capabilities where the server can tell them. */
  describe?(signal?: AbortSignal): Promise<ModelInfo>
  /**
   * The window the model will actually run with, where the provider decides it (Ollama's
   * num_ctx) or the user set it (`numCtx` for a Chat server); undefined when it cannot tell.
   */
  contextWindow?(signal?: AbortSignal): Promise<number | undefined>
}

export type ProviderErrorKind =
  /** Connection refused / reset / dropped mid-stream: retry. */
  | 'network'
  /** 429 rate limit: retry after `retryAfterMs`. */
  | 'rate-limit'
  /** 5xx or an in-stream server error: retry. */
  | 'server'
  /** 401/403: do not retry; the key is missing or wrong. */
  | 'auth'
  /** insufficient_quota: do not retry. */
  | 'quota'
  /** The request did not fit the model's window. */
  | 'context-overflow'
  /** Unknown model (404 "model not found"). */
  | 'not-found'
  /** 400 and other client errors. */
  | 'bad-request'
  /** The server answered with something that is not the protocol (HTML, garbage, an empty turn). */
  | 'bad-response'
  /** A stream limit fired (connect, first token, idle): retry. `hint` says how to change it. */
  | 'timeout'
  /** The answer passed the length cap (a server that ignores max tokens, or loops): do not retry. */
  | 'too-long'

export class ProviderError extends Error {
  readonly kind: ProviderErrorKind
  readonly status?: number
  readonly retryAfterMs?: number
  readonly code?: string
  /** What the user can change when the generic advice for `kind` does not fit (a limit's setting). */
  readonly hint?: string

  constructor(
    kind: ProviderErrorKind,
    message: string,
    opts: { status?: number; retryAfterMs?: number; code?: string; cause?: unknown; hint?: string } = {},
  ) {
    super(message, { cause: opts.cause })
    this.name = 'ProviderError'
    this.kind = kind
    this.status = opts.status
    this.retryAfterMs = opts.retryAfterMs
    this.code = opts.code
    this.hint = opts.hint
  }

  get retryable(): boolean {
    return (
      this.kind === 'network' ||
      this.kind === 'rate-limit' ||
      this.kind === 'server' ||
      this.kind === 'timeout'
    )
  }
}

export interface ProviderConfig {
  provider: ProviderId
  model: string
  baseUrl?: string
  apiKey?: string
  /**
   * The context window in tokens. Ollama: the `num_ctx` sent with every request (else the
   * model's own length up to `maxNumCtx`). Chat/Responses servers fix their window
   * themselves: this tells Stepwise its size, to stay within it.
   */
  numCtx?: number
  /** Ollama: the largest num_ctx chosen automatically from the model's length (default 32768). */
  maxNumCtx?: number
  /** Sampling temperature sent to the server; the server's default when absent. */
  temperature?: number
  /** The stream limits (docs/local-models.md#timeouts-and-the-answer-cap); defaults when absent. */
  firstTokenTimeoutSec?: number
  idleTimeoutSec?: number
  maxOutputTokens?: number
}

/** What the user chose beyond the model itself (window, sampling, stream limits), for every provider. */
export interface ModelOptions {
  numCtx?: number
  maxNumCtx?: number
  temperature?: number
  firstTokenTimeoutSec?: number
  idleTimeoutSec?: number
  maxOutputTokens?: number
}
