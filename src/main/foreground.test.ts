import { describe, expect, it } from 'vitest'
import { Foreground } from './foreground'

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance(ms: number): void } {
  let t = 1_000
  return { now: () => t, advance: (ms) => void (t += ms) }
}

/** Whether `p` has settled once the microtasks queued so far have run. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false
  void p.then(() => (done = true))
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('Foreground', () => {
  it('lets background work go on at once when nothing holds it', () => {
    const fg = new Foreground()
    expect(fg.busy()).toBe(false)
    expect(fg.wait()).toBeUndefined()
  })

  it('holds background work back until the last hold is released', async () => {
    const fg = new Foreground(60_000)
    const releaseA = fg.hold()
    const releaseB = fg.hold()
    const waiting = fg.wait()!
    expect(waiting).toBeInstanceOf(Promise)

    releaseA()
    releaseA() // a second release of the same hold changes nothing
    expect(fg.busy()).toBe(true)
    expect(await settled(waiting)).toBe(false)

    releaseB()
    expect(await settled(waiting)).toBe(true)
    expect(fg.wait()).toBeUndefined()
  })

  it('holds back for at most maxMs of a hold, so a long command cannot starve the walk', () => {
    const clock = manualClock()
    const fg = new Foreground(500, clock.now)
    const release = fg.hold()
    clock.advance(499)
    expect(fg.busy()).toBe(true)
    clock.advance(1)
    expect(fg.busy()).toBe(false)
    expect(fg.wait()).toBeUndefined()
    // A new hold after the long one ended has its own bound.
    release()
    fg.hold()
    expect(fg.busy()).toBe(true)
  })

  it("gives a new hold its own bound while an older one is still on past its own (another session's pending approval)", async () => {
    const clock = manualClock()
    const fg = new Foreground(500, clock.now)
    fg.hold() // waits on the user for minutes
    clock.advance(60_000)
    expect(fg.busy()).toBe(false)
    const releaseStep = fg.hold()
    expect(fg.busy()).toBe(true)
    const waiting = fg.wait()!
    expect(await settled(waiting)).toBe(false)
    // The step ends: the walk goes on, though the old hold is still on.
    releaseStep()
    expect(await settled(waiting)).toBe(true)
    expect(fg.wait()).toBeUndefined()
  })

  it('keeps a hold that began after the waiters started waiting on an older one', async () => {
    // The clock that judges the holds moves by hand; the timer that wakes the waiters is real.
    const clock = manualClock()
    const fg = new Foreground(40, clock.now)
    fg.hold()
    const first = fg.wait()!
    clock.advance(20)
    fg.hold() // a second session's step, 20 ms into the first hold
    await first // the first hold's bound
    expect(fg.busy()).toBe(true)
    clock.advance(40)
    expect(fg.busy()).toBe(false)
  })

  it('wakes its waiters when the bound passes while the hold is still on', async () => {
    const fg = new Foreground(30)
    fg.hold()
    const waiting = fg.wait()!
    expect(await settled(waiting)).toBe(false)
    await waiting
    expect(fg.busy()).toBe(false)
  })
})
