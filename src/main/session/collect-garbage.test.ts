import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { createProvider } from '../providers'
import { warmHttp } from '../providers/warm-http'
import { collectGarbageNow } from './collect-garbage'
import { warmFirstRequest } from './session'

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('collectGarbageNow', () => {
  it('collects what nothing holds any more', async () => {
    let ref: WeakRef<object> | undefined
    ;(() => {
      ref = new WeakRef({ rows: Array.from({ length: 10_000 }, (_, i) => ({ i })) })
    })()
    // A WeakRef's target lives until the job that made it, or last read it, ends.
    await nextTurn()
    expect(ref?.deref()).toBeDefined()
    await nextTurn()
    expect(collectGarbageNow()).toBe(true)
    expect(ref?.deref()).toBeUndefined()
  })

  it('gives no later context a gc function, and none to this one', () => {
    collectGarbageNow()
    expect(runInNewContext('typeof gc')).toBe('undefined')
    expect(Reflect.has(globalThis, 'gc')).toBe(false)
  })
})

describe('warmFirstRequest', () => {
  const provider = createProvider({
    provider: 'openai',
    model: 'gpt-4o-mini',
    baseUrl: 'http://127.0.0.1:9/v1',
  })

  it('collects the warm-up’s garbage for a session about to run its first turn', async () => {
    let collected = 0
    warmFirstRequest(provider, { tools: [] }, true, () => collected++)
    await nextTurn()
    expect(collected).toBe(1)
  })

  it('resolves once the HTTP client’s warm-up is over, for the first turn to wait on', async () => {
    let httpWarmed = false
    // The same warm-up warmFirstRequest starts (one per process): seen from here as it ends.
    void warmHttp().then(() => (httpWarmed = true))
    await warmFirstRequest(provider, { tools: [] }, false, () => undefined)
    expect(httpWarmed).toBe(true)
  })

  it('collects nothing for a session prepared ahead of its turn', async () => {
    let collected = 0
    warmFirstRequest(provider, { tools: [] }, false, () => collected++)
    warmFirstRequest(provider, { tools: [] }, undefined, () => collected++)
    await nextTurn()
    expect(collected).toBe(0)
  })
})
