import type { SpanModel } from './spans'

/**
 * The time axis. A session can sit idle for hours between two messages; drawn to scale,
 * that gap would squeeze the work into a sliver. Idle stretches longer than GAP_MS (no
 * span open, no event) are shown GAP_SHOWN_MS wide and marked as a break, the way a
 * trace viewer folds an idle gap. Everything else is to scale: an axis unit is a
 * millisecond of work.
 */

export const GAP_MS = 30_000
export const GAP_SHOWN_MS = 3_000

export interface Gap {
  /** Real time the idle stretch began and ended. */
  from: number
  to: number
  /** Where it starts on the axis. */
  x: number
}

export interface Axis {
  /** Real time at axis 0. */
  origin: number
  gaps: Gap[]
  /** Axis length up to `end`. */
  total: number
  /** Real time at the end of the axis (the last event, or now while something runs). */
  end: number
}

/** Folds idle gaps as intervals come in start order. */
class GapFolder {
  readonly gaps: Gap[] = []
  private covered: number
  private folded = 0

  constructor(private readonly origin: number) {
    this.covered = origin
  }

  add(start: number, stop: number): void {
    if (start - this.covered > GAP_MS) {
      this.gaps.push({ from: this.covered, to: start, x: this.covered - this.origin - this.folded })
      this.folded += start - this.covered - GAP_SHOWN_MS
    }
    if (stop > this.covered) this.covered = stop
  }

  axis(end: number): Axis {
    const axis: Axis = { origin: this.origin, gaps: this.gaps, total: 0, end }
    axis.total = toAxis(axis, Math.max(end, this.origin))
    return axis
  }
}

/**
 * Folds the idle gaps of `intervals` (real [start, end] pairs, sorted by start): a gap is
 * where nothing covers time for longer than GAP_MS.
 */
export function buildAxis(
  intervals: ReadonlyArray<readonly [number, number]>,
  origin: number,
  end: number,
): Axis {
  const folder = new GapFolder(origin)
  for (const [start, stop] of intervals) folder.add(start, stop)
  return folder.axis(end)
}

/**
 * The axis of a model at `now`: its spans and marks in start order (spans are created in
 * start order; marks are merged in). Plain loops: this runs on every frame of a live turn.
 */
export function axisOf(model: SpanModel, now: number): Axis {
  const origin = model.firstTs ?? now
  const end = model.live ? Math.max(now, model.lastTs ?? now) : (model.lastTs ?? now)
  const folder = new GapFolder(origin)
  const { spans, marks } = model
  let m = 0
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]
    for (; m < marks.length && marks[m].ts < s.start; m++) folder.add(marks[m].ts, marks[m].ts)
    folder.add(s.start, s.end ?? now)
  }
  for (; m < marks.length; m++) folder.add(marks[m].ts, marks[m].ts)
  return folder.axis(end)
}

/** The last gap that starts at or before real time `t`, or -1. */
function gapBefore(gaps: readonly Gap[], t: number): number {
  let lo = 0
  let hi = gaps.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (gaps[mid].from <= t) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

/** Real time to axis units. */
export function toAxis(axis: Axis, t: number): number {
  const i = gapBefore(axis.gaps, t)
  if (i < 0) return t - axis.origin
  const g = axis.gaps[i]
  if (t < g.to) return g.x + ((t - g.from) / (g.to - g.from)) * GAP_SHOWN_MS
  return g.x + GAP_SHOWN_MS + (t - g.to)
}

/** Axis units to real time (the inverse of toAxis). */
export function fromAxis(axis: Axis, x: number): number {
  let lo = 0
  let hi = axis.gaps.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (axis.gaps[mid].x <= x) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  if (found < 0) return axis.origin + x
  const g = axis.gaps[found]
  if (x < g.x + GAP_SHOWN_MS) return g.from + ((x - g.x) / GAP_SHOWN_MS) * (g.to - g.from)
  return g.to + (x - g.x - GAP_SHOWN_MS)
}

const TICK_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
  600_000, 900_000, 1_800_000, 3_600_000, 7_200_000,
]

/** A tick spacing (axis ms) that puts ticks at least `minPx` apart at `msPerPx`. */
export function tickStep(msPerPx: number, minPx: number): number {
  const want = msPerPx * minPx
  return TICK_STEPS.find((s) => s >= want) ?? Math.ceil(want / 3_600_000) * 3_600_000
}

/** A tick label: time since the session's start on the axis, folded gaps not counted. */
export function tickLabel(ms: number, step: number): string {
  if (step < 1000) return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(step < 100 ? 2 : 1)} s`
  const s = Math.round(ms / 1000)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}:${String(s % 60).padStart(2, '0')}`
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')}`
}
