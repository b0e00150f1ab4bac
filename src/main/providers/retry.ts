import { ProviderError } from './types'

/**
 * Retry policy for model turns (docs/model-protocols.md#http-errors-and-retries): only `retryable` ProviderErrors (network,
 * rate-limit, server). Auth, quota, bad-request, context-overflow and not-found fail at
 * once: retrying cannot help, and a quota error retried in a loop only burns time.
 */
export interface RetryOptions {
  maxAttempts?: number
  baseDelayMs?: number
  maxDelayMs?: number
  signal?: AbortSignal
  onRetry?: (attempt: number, delayMs: number, error: ProviderError) => void
  /** Injectable for tests; must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** Injectable for tests: returns [0, 1). */
  random?: () => number
}

/** A server-provided retry-after above this is not honoured as-is. */
const RETRY_AFTER_CAP_MS = 60_000

export async function withRetry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const maxAttempts = opts.maxAttempts ?? 4
  const base = opts.baseDelayMs ?? 500
  const maxDelay = opts.maxDelayMs ?? 30_000
  const sleep = opts.sleep ?? abortableSleep
  const random = opts.random ?? Math.random
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt)
    } catch (err) {
      if (!(err instanceof ProviderError) || !err.retryable || attempt >= maxAttempts || opts.signal?.aborted)
        throw err
      const delayMs =
        err.retryAfterMs !== undefined
          ? Math.min(err.retryAfterMs, RETRY_AFTER_CAP_MS)
          : // Exponential backoff with "equal jitter": half fixed, half random.
            Math.round(Math.min(maxDelay, base * 2 ** (attempt - 1)) * (0.5 + random() / 2))
      opts.onRetry?.(attempt, delayMs, err)
      await sleep(delayMs, opts.signal)
    }
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
