import { describe, expect, it } from 'vitest'
import { withRetry } from './retry'
import { ProviderError, type ProviderErrorKind } from './types'

function script(...outcomes: Array<ProviderError | string>) {
  let calls = 0
  const fn = async () => {
    const o = outcomes[calls++]
    if (o instanceof ProviderError) throw o
    return o
  }
  return { fn, calls: () => calls }
}

function recorder() {
  const sleeps: number[] = []
  const retries: Array<[number, number, ProviderErrorKind]> = []
  return {
    sleeps,
    retries,
    opts: {
      sleep: async (ms: number) => void sleeps.push(ms),
      onRetry: (attempt: number, delay: number, e: ProviderError) =>
        void retries.push([attempt, delay, e.kind]),
      random: () => 0.5,
    },
  }
}

describe('withRetry', () => {
  it('honours retryAfterMs on a rate limit, then succeeds', async () => {
    const s = script(new ProviderError('rate-limit', '429', { retryAfterMs: 2000 }), 'ok')
    const r = recorder()
    expect(await withRetry(s.fn, r.opts)).toBe('ok')
    expect(r.retries).toEqual([[1, 2000, 'rate-limit']])
    expect(r.sleeps).toEqual([2000])
  })

  it('backs off exponentially with jitter on server and network errors, up to maxAttempts', async () => {
    const s = script(
      new ProviderError('server', '500'),
      new ProviderError('network', 'reset'),
      new ProviderError('server', '502'),
      new ProviderError('server', '503'),
    )
    const r = recorder()
    await expect(withRetry(s.fn, { ...r.opts, baseDelayMs: 100 })).rejects.toMatchObject({
      kind: 'server',
      message: '503',
    })
    expect(s.calls()).toBe(4)
    // random 0.5 → 75 % of 100, 200, 400
    expect(r.sleeps).toEqual([75, 150, 300])
  })

  it('caps the backoff at maxDelayMs and a retry-after at 60 s', async () => {
    const r = recorder()
    const s = script(
      new ProviderError('server', 'a'),
      new ProviderError('rate-limit', 'b', { retryAfterMs: 90_000 }),
      'ok',
    )
    expect(await withRetry(s.fn, { ...r.opts, baseDelayMs: 10_000, maxDelayMs: 4000 })).toBe('ok')
    expect(r.sleeps).toEqual([3000, 60_000])
  })

  for (const kind of [
    'auth',
    'quota',
    'bad-request',
    'context-overflow',
    'not-found',
    'bad-response',
  ] as const) {
    it(`does not retry ${kind}`, async () => {
      const s = script(new ProviderError(kind, kind), 'ok')
      const r = recorder()
      await expect(withRetry(s.fn, r.opts)).rejects.toMatchObject({ kind })
      expect(s.calls()).toBe(1)
      expect(r.sleeps).toEqual([])
    })
  }

  it('does not retry plain errors or after the signal aborted', async () => {
    let plainCalls = 0
    const plain = async () => {
      plainCalls++
      throw new Error('bug')
    }
    await expect(withRetry(plain, recorder().opts)).rejects.toThrow('bug')
    expect(plainCalls).toBe(1)
    const ac = new AbortController()
    ac.abort()
    const s = script(new ProviderError('server', 'x'), 'ok')
    await expect(withRetry(s.fn, { ...recorder().opts, signal: ac.signal })).rejects.toMatchObject({
      kind: 'server',
    })
    expect(s.calls()).toBe(1)
  })

  it('the default sleep rejects when the signal aborts', async () => {
    const ac = new AbortController()
    const s = script(new ProviderError('rate-limit', 'x', { retryAfterMs: 60_000 }), 'ok')
    // Abort just before the (real, 60 s) sleep starts: it must reject at once.
    await expect(
      withRetry(s.fn, { signal: ac.signal, onRetry: () => ac.abort(new Error('stopped')) }),
    ).rejects.toThrow('stopped')
    expect(s.calls()).toBe(1)
  })
})
