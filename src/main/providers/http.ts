import { recordOf } from '../../shared/records'
import type { ProviderId } from '../../shared/protocol'
import { badResponse, errorFromHttp } from './errors'
import { connectTimeout, StreamWatchdog, streamLimits, type StreamLimits } from './limits'
import { ProviderError, type TrafficEntry } from './types'

/**
 * The transport every provider shares: plain `fetch`, no SDK. We read the bytes
 * ourselves because (a) the traffic log needs every body exactly as received, and
 * (b) the SDK stream helpers mishandle real streams (llama.cpp `error:` lines dropped,
 * empty `data:` throwing, index quirks; docs/model-protocols.md#chat-framing). Retrying is not done
 * here: callers wrap turns in `withRetry`.
 */

export interface PostRequest {
  provider: ProviderId
  url: string
  body: unknown
  apiKey?: string
  signal?: AbortSignal
  onTraffic?: (entry: TrafficEntry) => void
  /** The answer's time and length limits (limits.ts); the defaults when absent. */
  limits?: StreamLimits
}

/**
 * An incremental stream parser (SSE or NDJSON): fed decoded text (returning how many complete
 * events it made of it, which is what the idle timer counts), then told the stream ended.
 */
export interface StreamParser {
  push(text: string): number
  end(): void
}

/**
 * POSTs JSON and feeds the decoded response text to `parser` chunk by chunk (UTF-8
 * split across TCP chunks is decoded in streaming mode), then ends it; returns the
 * whole body. Non-2xx → ProviderError from the body. If the parser throws (an error
 * event in the stream), reading stops and the error propagates. The request and the
 * whole response body are always logged.
 */
export async function postStreaming(req: PostRequest, parser: StreamParser): Promise<string> {
  const bodyText = JSON.stringify(req.body)
  req.onTraffic?.({ direction: 'request', provider: req.provider, url: req.url, body: bodyText })
  const watchdog = new StreamWatchdog(req.url, req.limits ?? streamLimits(), req.signal)
  try {
    return await readStream({ ...req, signal: watchdog.signal }, bodyText, parser, watchdog)
  } catch (err) {
    // A limit that fired wins over whatever the aborted read threw.
    throw watchdog.fired ?? err
  } finally {
    watchdog.dispose()
  }
}

async function readStream(
  req: PostRequest,
  bodyText: string,
  parser: StreamParser,
  watchdog: StreamWatchdog,
): Promise<string> {
  const res = await send(req, bodyText)
  let received = ''
  try {
    if (!res.ok) {
      received = await readAll(res, req)
      throw errorFromHttp(res.status, res.headers, received, req.url)
    }
    if (/text\/html/i.test(res.headers.get('content-type') ?? '')) {
      received = await readAll(res, req)
      throw badResponse('a web page instead of a model stream', received)
    }
    if (!res.body) {
      parser.end()
      return received
    }
    const decoder = new TextDecoder('utf-8')
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true })
        received += text
        watchdog.received(received.length)
        if (text && parser.push(text) > 0) watchdog.progress()
      }
    } catch (err) {
      throw mapFetchError(err, req, 'The connection dropped mid-stream')
    }
    const tail = decoder.decode()
    received += tail
    if (tail) parser.push(tail)
    parser.end()
    return received
  } finally {
    req.onTraffic?.({
      direction: 'response',
      provider: req.provider,
      url: req.url,
      status: res.status,
      body: received,
    })
  }
}

/**
 * A small JSON request (Ollama's /api/show, /api/tags). Throws ProviderError like postStreaming;
 * the whole request is bounded by the first-token timeout.
 */
export async function requestJson(
  req: Omit<PostRequest, 'body'> & { method: 'GET' | 'POST'; body?: unknown },
): Promise<unknown> {
  const bodyText = req.body === undefined ? undefined : JSON.stringify(req.body)
  req.onTraffic?.({ direction: 'request', provider: req.provider, url: req.url, body: bodyText ?? '' })
  const watchdog = new StreamWatchdog(req.url, req.limits ?? streamLimits(), req.signal)
  let res: Response
  let text: string
  try {
    const watched = { ...req, signal: watchdog.signal }
    res = await send(watched, bodyText)
    text = await readAll(res, watched)
  } catch (err) {
    throw watchdog.fired ?? err
  } finally {
    watchdog.dispose()
  }
  req.onTraffic?.({
    direction: 'response',
    provider: req.provider,
    url: req.url,
    status: res.status,
    body: text,
  })
  if (!res.ok) throw errorFromHttp(res.status, res.headers, text, req.url)
  try {
    return JSON.parse(text)
  } catch {
    throw badResponse(`something that is not JSON from ${req.url}`, text)
  }
}

async function send(
  req: Omit<PostRequest, 'body'> & { method?: string },
  body: string | undefined,
): Promise<Response> {
  const headers: Record<string, string> = {
    accept: 'application/json, text/event-stream, application/x-ndjson',
  }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (req.apiKey) headers.authorization = `Bearer ${req.apiKey}`
  try {
    return await fetch(req.url, { method: req.method ?? 'POST', headers, body, signal: req.signal })
  } catch (err) {
    throw mapFetchError(err, req, `Could not reach ${new URL(req.url).origin}`)
  }
}

async function readAll(res: Response, req: { signal?: AbortSignal; url: string }): Promise<string> {
  try {
    return await res.text()
  } catch (err) {
    throw mapFetchError(err, req, 'The connection dropped while reading the response')
  }
}

/**
 * fetch failures → ProviderError('network'). An abort is not a provider failure: the
 * signal's reason (an AbortError by default) is rethrown so callers can tell them apart.
 */
function mapFetchError(err: unknown, req: { signal?: AbortSignal; url: string }, what: string): unknown {
  if (err instanceof ProviderError) return err
  if (req.signal?.aborted) return req.signal.reason ?? err
  // undici's fetch failure: a TypeError whose `cause` is the socket's error (code, message).
  const cause = recordOf(recordOf(err).cause)
  const code = typeof cause.code === 'string' ? cause.code : undefined
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return connectTimeout(req.url, err)
  const detail =
    code === 'ECONNREFUSED'
      ? 'connection refused; is the server running?'
      : typeof cause.message === 'string'
        ? cause.message
        : err instanceof Error
          ? err.message
          : String(err)
  return new ProviderError('network', `${what} (${req.url}): ${detail}`, { code, cause: err })
}

/** Joins a base URL and a path without doubling or dropping slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}
