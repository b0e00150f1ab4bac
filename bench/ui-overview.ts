import type { Page } from 'playwright-core'

/*
 * What bench/ui.bench.ts asks the page about the timeline's overview (issue 15). The overview
 * keeps its own work per frame (building spans from events, drawing the canvas) in a ring,
 * `globalThis.__overviewWork` (src/renderer/src/timeline/overview/stats.ts); these read it.
 * Functions passed to `page.evaluate` are serialized: they use nothing from this module.
 */

interface WorkRing {
  times: ArrayLike<number>
  count: number
}

interface OverviewWindow {
  __overviewWork?: WorkRing
  __frameGaps?: number[]
  localStorage: { setItem(k: string, v: string): void }
  document: {
    querySelector(s: string): {
      getBoundingClientRect(): { left: number; top: number; width: number; height: number }
      dispatchEvent(e: unknown): boolean
    } | null
  }
  WheelEvent: new (type: string, init: Record<string, unknown>) => unknown
  requestAnimationFrame(cb: (t: number) => void): number
}

/** Shows or hides the overview for sessions opened from now on (the user's own toggle, remembered). */
export function setOverviewHidden(page: Page, hidden: boolean): Promise<void> {
  return page.evaluate((hidden) => {
    ;(globalThis as unknown as OverviewWindow).localStorage.setItem(
      'stepwise.overview.hidden',
      hidden ? '1' : '0',
    )
  }, hidden)
}

/** How many frames of overview work the page has recorded so far. */
export function overviewWorkCount(page: Page): Promise<number> {
  return page.evaluate(() => (globalThis as unknown as OverviewWindow).__overviewWork?.count ?? 0)
}

/** The overview's work (ms) in each frame recorded after the first `since` (the last 2048 at most). */
export function overviewWorkSince(page: Page, since: number): Promise<number[]> {
  return page.evaluate((since) => {
    const ring = (globalThis as unknown as OverviewWindow).__overviewWork
    if (!ring) return []
    const size = ring.times.length
    const out: number[] = []
    for (let i = Math.max(since, ring.count - size); i < ring.count; i++) out.push(ring.times[i % size])
    return out
  }, since)
}

/** Starts recording the page's frame intervals (rAF to rAF): the frame time it actually had. */
export function startFrameGaps(page: Page): Promise<void> {
  return page.evaluate(() => {
    const w = globalThis as unknown as OverviewWindow
    const gaps: number[] = []
    w.__frameGaps = gaps
    let last = -1
    const tick = (t: number): void => {
      if (last >= 0) gaps.push(t - last)
      last = t
      if (w.__frameGaps === gaps) w.requestAnimationFrame(tick)
    }
    w.requestAnimationFrame(tick)
  })
}

/** Stops recording and returns the intervals. */
export function stopFrameGaps(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const w = globalThis as unknown as OverviewWindow
    const gaps = w.__frameGaps ?? []
    w.__frameGaps = undefined
    return gaps
  })
}

/**
 * Zooms the overview in and out with the wheel at its middle, one wheel event a frame,
 * `frames` times (in, then back out): what a user does to look into a long session.
 */
export function wheelOverview(page: Page, frames: number): Promise<void> {
  return page.evaluate((frames) => {
    const w = globalThis as unknown as OverviewWindow
    const plot = w.document.querySelector('.ov-plot')
    if (!plot) throw new Error('no overview on the page')
    const r = plot.getBoundingClientRect()
    return new Promise<void>((resolve) => {
      let i = 0
      const tick = (): void => {
        if (i >= frames) return resolve()
        const deltaY = i < frames / 2 ? -120 : 120
        plot.dispatchEvent(
          new w.WheelEvent('wheel', {
            deltaY,
            clientX: r.left + r.width * 0.6,
            clientY: r.top + r.height / 2,
            bubbles: true,
            cancelable: true,
          }),
        )
        i++
        w.requestAnimationFrame(tick)
      }
      w.requestAnimationFrame(tick)
    })
  }, frames)
}

/** Waits two frames in the page (what was scheduled for the next frame has run). */
export function twoFrames(page: Page): Promise<void> {
  return page.evaluate(() => {
    const w = globalThis as unknown as OverviewWindow
    return new Promise<void>((resolve) =>
      w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve())),
    )
  })
}
