import { ProviderError, type ModelOptions } from './types'

/**
 * The limits on one model answer (docs/local-models.md#timeouts-and-the-answer-cap). Every
 * provider's stream goes through them in http.ts, so a server that accepts and then stalls,
 * trickles bytes that never make an event, or streams forever ends the turn with an error
 * that names the limit and how to change it — and the timeouts go through the retry policy.
 *
 * - connect: Node's HTTP client gives up on a TCP connect after 10 s (undici's default; not
 *   settable here). Its error is named like the others.
 * - first token: from sending the request to the first complete stream event. Long, because
 *   a local server loads the model first (Ollama answers only once the model is in memory).
 * - idle: between two complete stream events. Bytes that never complete an event do not
 *   count, so a slow-loris that sends a byte every few seconds still trips it.
 * - answer cap: `maxOutputTokens` is sent to the server (Ollama always; Chat and Responses
 *   when set, since OpenAI and vLLM reject a value above the model's own limit), and the
 *   stream is cut once its bytes pass what that many tokens can take on the wire.
 */

export const DEFAULT_FIRST_TOKEN_TIMEOUT_SEC = 300
export const DEFAULT_IDLE_TIMEOUT_SEC = 120
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_768
/** What one streamed token may take on the wire at most: an SSE event with its JSON envelope. */
export const WIRE_BYTES_PER_TOKEN = 1024
/** undici's connect timeout, which Node's fetch uses. */
export const CONNECT_TIMEOUT_SEC = 10

export interface StreamLimits {
  firstTokenMs: number
  idleMs: number
  /** The answer's length cap, in tokens (sent to the server where the provider does). */
  maxOutputTokens: number
  /** Whether the user set the cap (then Chat and Responses send it too). */
  maxOutputTokensSet: boolean
}

export function streamLimits(
  options: Pick<ModelOptions, 'firstTokenTimeoutSec' | 'idleTimeoutSec' | 'maxOutputTokens'> = {},
): StreamLimits {
  return {
    firstTokenMs: (options.firstTokenTimeoutSec ?? DEFAULT_FIRST_TOKEN_TIMEOUT_SEC) * 1000,
    idleMs: (options.idleTimeoutSec ?? DEFAULT_IDLE_TIMEOUT_SEC) * 1000,
    maxOutputTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    maxOutputTokensSet: options.maxOutputTokens !== undefined,
  }
}

function seconds(ms: number): string {
  const s = ms / 1000
  return Number.isInteger(s) ? `${s} s` : `${s.toFixed(1)} s`
}

export function firstTokenTimeout(url: string, ms: number): ProviderError {
  return new ProviderError(
    'timeout',
    `No answer from ${url} within ${seconds(ms)} of sending the request (the first-token timeout).`,
    {
      code: 'first-token-timeout',
      hint:
        `A local model that is still loading can take longer: raise the limit with --first-token-timeout SECONDS, ` +
        `or the "firstTokenTimeoutSec" model option in Settings (default ${DEFAULT_FIRST_TOKEN_TIMEOUT_SEC}).`,
    },
  )
}

export function idleTimeout(url: string, ms: number): ProviderError {
  return new ProviderError(
    'timeout',
    `${url} stopped mid-answer: nothing complete arrived for ${seconds(ms)} (the idle timeout).`,
    {
      code: 'idle-timeout',
      hint:
        `If the server is just slow, raise the limit with --idle-timeout SECONDS, or the "idleTimeoutSec" ` +
        `model option in Settings (default ${DEFAULT_IDLE_TIMEOUT_SEC}).`,
    },
  )
}

export function connectTimeout(url: string, cause: unknown): ProviderError {
  return new ProviderError(
    'timeout',
    `Could not connect to ${new URL(url).origin} within ${CONNECT_TIMEOUT_SEC} s (the connect timeout).`,
    {
      code: 'connect-timeout',
      cause,
      hint: 'Is the server up and the address right (--base-url, OPENAI_BASE_URL or OLLAMA_HOST)? A firewall that drops packets looks like this too.',
    },
  )
}

export function answerTooLong(url: string, limits: StreamLimits, bytes: number): ProviderError {
  return new ProviderError(
    'too-long',
    `The answer from ${url} passed the length cap: ${Math.round(bytes / 1024)} KiB received, more than ` +
      `${limits.maxOutputTokens} tokens can take. The server ignores the cap or is repeating itself; the stream was stopped.`,
    {
      code: 'answer-too-long',
      hint:
        `Ask for a smaller step, or raise the cap with --max-output-tokens N, or the "maxOutputTokens" model ` +
        `option in Settings (default ${DEFAULT_MAX_OUTPUT_TOKENS}).`,
    },
  )
}

/**
 * Watches one request: `progress()` at each complete stream event, `received(bytes)` as
 * bytes arrive. When a limit fires, `signal` aborts with the limit's ProviderError as its
 * reason (also when the caller's own signal aborts, with that signal's reason).
 */
export class StreamWatchdog {
  private readonly controller = new AbortController()
  private timer: NodeJS.Timeout | undefined
  readonly signal: AbortSignal
  private readonly onOuterAbort: () => void

  constructor(
    private readonly url: string,
    private readonly limits: StreamLimits,
    private readonly outer?: AbortSignal,
  ) {
    this.signal = this.controller.signal
    this.onOuterAbort = () => this.abort(outer?.reason)
    if (outer?.aborted) this.abort(outer.reason)
    else outer?.addEventListener('abort', this.onOuterAbort, { once: true })
    this.arm(limits.firstTokenMs, () => firstTokenTimeout(url, limits.firstTokenMs))
  }

  /** True when the abort came from a limit (not from the caller). */
  get fired(): ProviderError | undefined {
    const reason: unknown = this.signal.reason
    return this.signal.aborted && !this.outer?.aborted && reason instanceof ProviderError ? reason : undefined
  }

  /** A complete event arrived: the first ends the first-token wait; each restarts the idle timer. */
  progress(): void {
    if (this.signal.aborted) return
    this.arm(this.limits.idleMs, () => idleTimeout(this.url, this.limits.idleMs))
  }

  /** The bytes received so far; past the cap the stream is stopped. */
  received(bytes: number): void {
    if (bytes > this.limits.maxOutputTokens * WIRE_BYTES_PER_TOKEN)
      this.abort(answerTooLong(this.url, this.limits, bytes))
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.outer?.removeEventListener('abort', this.onOuterAbort)
  }

  private arm(ms: number, error: () => ProviderError): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => this.abort(error()), ms)
  }

  private abort(reason: unknown): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (!this.signal.aborted) this.controller.abort(reason)
  }
}
