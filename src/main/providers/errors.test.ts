import { describe, expect, it } from 'vitest'
import { errorFromHttp, errorFromPayload, retryAfterFrom } from './errors'

const h = (init: Record<string, string> = {}) => new Headers(init)
const err = (message: string, type: string | null, code: string | null) =>
  JSON.stringify({ error: { message, type, param: null, code } })

describe('retryAfterFrom', () => {
  it('reads retry-after-ms, retry-after seconds, an HTTP date, and the "try again in" text', () => {
    const now = Date.parse('2025-01-01T00:00:00Z')
    expect(retryAfterFrom(h({ 'retry-after-ms': '250', 'retry-after': '9' }), '', now)).toBe(250)
    expect(retryAfterFrom(h({ 'retry-after': '2' }), '', now)).toBe(2000)
    expect(retryAfterFrom(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), '', now)).toBe(5000)
    expect(retryAfterFrom(h(), 'Please try again in 18.642s. Visit …', now)).toBe(18642)
    expect(retryAfterFrom(h(), 'Please try again in 6ms.', now)).toBe(6)
  })
  it('ignores hints over 60 s, negative or missing', () => {
    expect(retryAfterFrom(h({ 'retry-after': '120' }), '')).toBeUndefined()
    expect(retryAfterFrom(h({ 'retry-after-ms': '-5' }), '')).toBeUndefined()
    expect(retryAfterFrom(h(), 'no hint')).toBeUndefined()
  })
})

describe('errorFromHttp', () => {
  const cases: Array<[number, string, string, string | undefined]> = [
    [
      400,
      err(
        "This model's maximum context length is 8192 tokens.",
        'invalid_request_error',
        'context_length_exceeded',
      ),
      'context-overflow',
      'context_length_exceeded',
    ],
    [
      400,
      JSON.stringify({
        error: {
          code: 400,
          message:
            'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 4390,
          n_ctx: 4096,
        },
      }),
      'context-overflow',
      '400',
    ],
    [
      401,
      err('Incorrect API key provided: sk-abc***1234.', 'invalid_request_error', 'invalid_api_key'),
      'auth',
      'invalid_api_key',
    ],
    [403, 'Forbidden', 'auth', undefined],
    [
      429,
      err(
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        'insufficient_quota',
      ),
      'quota',
      'insufficient_quota',
    ],
    [
      429,
      err(
        'Rate limit reached for gpt-4o on tokens per min (TPM). Please try again in 1.5s.',
        'tokens',
        'rate_limit_exceeded',
      ),
      'rate-limit',
      'rate_limit_exceeded',
    ],
    [404, JSON.stringify({ error: "model 'qwen9' not found" }), 'not-found', undefined],
    [
      400,
      JSON.stringify({ error: 'registry.ollama.ai/library/gemma3:4b does not support tools' }),
      'bad-request',
      undefined,
    ],
    [
      503,
      JSON.stringify({ error: 'server busy, please try again.  maximum pending requests exceeded' }),
      'server',
      undefined,
    ],
    [
      500,
      JSON.stringify({ error: { message: 'Context size has been exceeded.', type: 'server_error' } }),
      'context-overflow',
      'server_error',
    ],
    [502, '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>', 'server', undefined],
  ]
  for (const [status, body, kind, code] of cases) {
    it(`${status} ${body.slice(0, 60)} → ${kind}`, () => {
      const e = errorFromHttp(status, h({ 'retry-after-ms': '0' }), body, 'http://x/v1/chat/completions')
      expect({ kind: e.kind, status: e.status, code: e.code }).toEqual({ kind, status, code })
    })
  }
  it('rate limits carry the retry delay; the message names the page title for HTML', () => {
    expect(
      errorFromHttp(429, h({ 'retry-after': '3' }), err('slow down', 'tokens', 'rate_limit_exceeded'), 'u')
        .retryAfterMs,
    ).toBe(3000)
    expect(errorFromHttp(502, h(), '<html><title>502 Bad Gateway</title></html>', 'u').message).toContain(
      '502 Bad Gateway',
    )
    expect(errorFromHttp(401, h(), err('bad key', null, 'invalid_api_key'), 'u').message).toContain(
      'OPENAI_API_KEY',
    )
  })
})

describe('errorFromPayload', () => {
  it('maps in-stream errors by code, type and message', () => {
    expect(
      errorFromPayload({
        message: 'Your input exceeds the context window of this model.',
        code: 'context_length_exceeded',
      }).kind,
    ).toBe('context-overflow')
    expect(errorFromPayload({ message: 'quota', code: 'insufficient_quota' }).kind).toBe('quota')
    expect(errorFromPayload({ message: 'x', code: 'rate_limit_exceeded' }).kind).toBe('rate-limit')
    expect(errorFromPayload({ message: 'an error was encountered while running the model' }).kind).toBe(
      'server',
    )
    expect(errorFromPayload({ message: 'bad', type: 'invalid_request_error' }).kind).toBe('bad-request')
  })
})
