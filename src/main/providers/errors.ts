import { recordOf } from '../../shared/records'
import { ProviderError, type ProviderErrorKind } from './types'

/**
 * Maps what servers say when something goes wrong (HTTP statuses, OpenAI-style
 * `{error:{message,type,code}}`, Ollama's `{error:"…"}`, llama.cpp's numeric codes,
 * in-stream error events) to `ProviderError` kinds. Reference §1.4, §2.2, §3.2, §4.
 */

/** Retry-after hints longer than this are ignored (the SDK does the same): back off instead. */
const MAX_RETRY_AFTER_MS = 60_000

const CONTEXT_RE =
  /context[_ ](length|size|window)|maximum context length|exceeds the available context|context size has been exceeded|prompt is too long|too many tokens/i

export interface ErrorPayload {
  message: string
  code?: string
  type?: string
}

/** Reads the error out of a response body, whatever its shape. */
export function parseErrorBody(body: string): ErrorPayload {
  const trimmed = body.trim()
  try {
    const parsed: unknown = JSON.parse(trimmed)
    const payload = payloadFromValue(parsed)
    if (payload) return payload
  } catch {
    // not JSON: fall through to a text snippet
  }
  return { message: snippet(trimmed) || '(empty body)' }
}

/** The error inside a parsed JSON value (`{error:{…}}`, `{error:"…"}`, or a flat error event). */
export function payloadFromValue(value: unknown): ErrorPayload | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const obj = recordOf(value) // an array has no error fields
  const inner = obj.error
  if (typeof inner === 'string') return { message: inner }
  if (inner && typeof inner === 'object') return payloadFromFields(recordOf(inner))
  if (typeof obj.message === 'string' || typeof obj.code === 'string') return payloadFromFields(obj)
  return undefined
}

function payloadFromFields(fields: Record<string, unknown>): ErrorPayload {
  const code = fields.code
  const type = fields.type
  return {
    message: typeof fields.message === 'string' ? fields.message : JSON.stringify(fields),
    // OpenRouter and llama.cpp send numeric codes; keep them as text.
    code: typeof code === 'string' || typeof code === 'number' ? String(code) : undefined,
    type: typeof type === 'string' ? type : undefined,
  }
}

/** An HTTP error response (non-2xx) → ProviderError. */
export function errorFromHttp(status: number, headers: Headers, body: string, url: string): ProviderError {
  const payload = parseErrorBody(body)
  const isHtml = /^\s*<(!doctype|html)/i.test(body)
  const detail = isHtml ? `an HTML page (${snippet(stripTags(body))})` : payload.message
  const kind = kindFor(payload, status)
  const opts = { status, code: payload.code ?? payload.type, retryAfterMs: undefined as number | undefined }
  if (kind === 'rate-limit') opts.retryAfterMs = retryAfterFrom(headers, payload.message)
  return new ProviderError(kind, messageFor(kind, status, detail, url), opts)
}

/** An error reported inside a 200 stream (error event, `error:` field, response.failed). */
export function errorFromPayload(
  payload: ErrorPayload,
  fallback: ProviderErrorKind = 'server',
): ProviderError {
  const kind = kindFor(payload, undefined) ?? fallback
  const retryAfterMs = kind === 'rate-limit' ? retryAfterFrom(undefined, payload.message) : undefined
  return new ProviderError(kind, messageFor(kind, undefined, payload.message, ''), {
    code: payload.code ?? payload.type,
    retryAfterMs,
  })
}

function kindFor(p: ErrorPayload, status: number): ProviderErrorKind
function kindFor(p: ErrorPayload, status: number | undefined): ProviderErrorKind | undefined
function kindFor(p: ErrorPayload, status: number | undefined): ProviderErrorKind | undefined {
  const ids = [p.code, p.type].filter((x): x is string => !!x)
  if (ids.includes('insufficient_quota')) return 'quota'
  if (
    ids.includes('context_length_exceeded') ||
    ids.includes('exceed_context_size_error') ||
    CONTEXT_RE.test(p.message)
  )
    return 'context-overflow'
  if (status === 401 || status === 403 || ids.includes('invalid_api_key')) return 'auth'
  if (status === 429 || ids.includes('rate_limit_exceeded')) return 'rate-limit'
  if (status === 404) return 'not-found'
  if (status === undefined && /model ['"].*['"] not found/i.test(p.message)) return 'not-found'
  if (status === 408 || status === 409 || (status !== undefined && status >= 500)) return 'server'
  if (ids.includes('server_error') || ids.includes('api_error')) return 'server'
  if (status !== undefined && status >= 400) return 'bad-request'
  if (ids.includes('invalid_request_error') || ids.includes('invalid_prompt')) return 'bad-request'
  return undefined
}

function messageFor(
  kind: ProviderErrorKind,
  status: number | undefined,
  detail: string,
  url: string,
): string {
  const where = url ? ` from ${url}` : ''
  const code = status !== undefined ? ` (HTTP ${status})` : ''
  switch (kind) {
    case 'auth':
      return `The server rejected the API key${code}: ${detail}. Check the API key (OPENAI_API_KEY or the provider settings).`
    case 'quota':
      return `The account has no quota left: ${detail}`
    case 'rate-limit':
      return `Rate limited${code}: ${detail}`
    case 'context-overflow':
      return `The request does not fit the model's context window: ${detail}`
    case 'not-found':
      return `Not found${code}${where}: ${detail}. Check the model name and the base URL.`
    default:
      return `Model server error${code}${where}: ${detail}`
  }
}

/**
 * Retry delay from `retry-after-ms`, `retry-after` (seconds or an HTTP date), or the
 * "Please try again in 18.642s" text OpenAI puts in the message. Over 60 s → undefined.
 */
export function retryAfterFrom(
  headers: Headers | undefined,
  message: string,
  now = Date.now(),
): number | undefined {
  let ms: number | undefined
  const msHeader = headers?.get('retry-after-ms')
  const header = headers?.get('retry-after')
  if (msHeader && Number.isFinite(Number(msHeader))) ms = Number(msHeader)
  else if (header) {
    const seconds = Number(header)
    if (header.trim() !== '' && Number.isFinite(seconds)) ms = seconds * 1000
    else {
      const date = Date.parse(header)
      if (Number.isFinite(date)) ms = Math.max(0, date - now)
    }
  }
  if (ms === undefined) {
    const m = /try again in (\d+(?:\.\d+)?)(ms|s)\b/i.exec(message)
    if (m) ms = Number(m[1]) * (m[2].toLowerCase() === 'ms' ? 1 : 1000)
  }
  if (ms === undefined || ms < 0 || ms > MAX_RETRY_AFTER_MS) return undefined
  return Math.round(ms)
}

/** The first 200 characters of a body, on one line, for error messages. */
export function snippet(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim()
  return one.length > 200 ? `${one.slice(0, 200)}…` : one
}

function stripTags(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)
  return title ? title[1] : html.replace(/<[^>]*>/g, ' ')
}

/** A 200 response whose body is not the expected protocol. */
export function badResponse(what: string, body: string): ProviderError {
  const looksHtml = /^\s*<(!doctype|html)/i.test(body)
  const detail = looksHtml
    ? `an HTML page (${snippet(stripTags(body))}); is the base URL right?`
    : body.trim() === ''
      ? 'an empty body'
      : `"${snippet(body)}"`
  return new ProviderError('bad-response', `The model server sent ${what}: ${detail}`)
}
