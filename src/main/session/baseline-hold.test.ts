import { describe, expect, it } from 'vitest'
import { foreground } from '../foreground'
import { deferred } from '../store/testing/helpers'
import { holdOnceBaselineIsTaken } from './session'

describe('holdOnceBaselineIsTaken', () => {
  it('holds the foreground before anything later told of the baseline runs, until let go', async () => {
    const baseline = deferred()
    const release = holdOnceBaselineIsTaken(baseline.promise, () => false)
    // The code index's build hears of the baseline after the hold was asked for (Session.create).
    const seenByTheIndex = baseline.promise.then(() => foreground.busy())
    expect(foreground.busy()).toBe(false)
    baseline.resolve()
    expect(await seenByTheIndex).toBe(true)
    const letGo = await release
    expect(letGo).toBeTypeOf('function')
    letGo!()
    expect(foreground.busy()).toBe(false)
  })

  it('takes no hold while the session still waits on its context (a small tree’s first index)', async () => {
    const baseline = deferred()
    const release = holdOnceBaselineIsTaken(baseline.promise, () => true)
    const seenByTheIndex = baseline.promise.then(() => foreground.busy())
    baseline.resolve()
    expect(await seenByTheIndex).toBe(false)
    expect(await release).toBeUndefined()
  })

  it('takes no hold when the baseline fails, and does not fail itself', async () => {
    const baseline = deferred()
    const release = holdOnceBaselineIsTaken(baseline.promise, () => false)
    baseline.reject(new Error('the disk is full'))
    await expect(baseline.promise).rejects.toThrow('the disk is full')
    expect(await release).toBeUndefined()
    expect(foreground.busy()).toBe(false)
  })
})
