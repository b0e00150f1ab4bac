/**
 * The visible window of the axis, zoomed and panned. `fit` shows the whole session and
 * grows with it; a zoomed view that reaches the end keeps following it while a turn runs
 * (as a log viewer tails), and stays put once the user pans back.
 */

export interface View {
  x0: number
  x1: number
  fit: boolean
}

export const FIT: View = { x0: 0, x1: 1, fit: true }
/** The narrowest window: 2 ms of work across the whole overview. */
export const MIN_SPAN = 2
/** How far the view may pan past either end, as a share of its width. */
const OVERSCROLL = 0.1

/** The window actually shown for an axis of length `total`. */
export function resolve(view: View, total: number): { x0: number; x1: number } {
  if (view.fit) {
    const span = Math.max(total, MIN_SPAN)
    // A sliver of room after the end, so the newest bar is not flush with the edge.
    return { x0: 0, x1: span * 1.02 }
  }
  return { x0: view.x0, x1: view.x1 }
}

function clampWindow(x0: number, x1: number, total: number): View {
  const width = Math.max(MIN_SPAN, x1 - x0)
  const limit = Math.max(total, MIN_SPAN)
  if (width >= limit * 1.02) return FIT
  const pad = width * OVERSCROLL
  let a = x0
  if (a < -pad) a = -pad
  if (a + width > limit + pad) a = limit + pad - width
  return { x0: a, x1: a + width, fit: false }
}

/** Zooms by `factor` (< 1 in, > 1 out) keeping the axis point at `anchor` (0..1 of the width) still. */
export function zoom(view: View, total: number, factor: number, anchor = 0.5): View {
  const { x0, x1 } = resolve(view, total)
  const width = x1 - x0
  const next = Math.max(MIN_SPAN, width * factor)
  const at = x0 + width * anchor
  return clampWindow(at - next * anchor, at - next * anchor + next, total)
}

/** Pans by `dx` axis units (positive: later). */
export function pan(view: View, total: number, dx: number): View {
  const { x0, x1 } = resolve(view, total)
  if (view.fit && x1 - x0 >= total) return view
  return clampWindow(x0 + dx, x1 + dx, total)
}

/** Shows [a, b] with a little room either side. */
export function showRange(total: number, a: number, b: number): View {
  const width = Math.max(MIN_SPAN * 4, b - a)
  return clampWindow(a - width * 0.05, b + width * 0.05, total)
}

/** Pans just enough to bring [a, b] into view; the view itself when it is already in. */
export function reveal(view: View, total: number, a: number, b: number): View {
  const { x0, x1 } = resolve(view, total)
  if (a >= x0 && b <= x1) return view
  const width = x1 - x0
  if (b - a > width) return showRange(total, a, b)
  const margin = width * 0.1
  const start = a < x0 ? a - margin : b + margin - width
  return clampWindow(start, start + width, total)
}

/** The axis grew from `before` to `after`: a zoomed view sitting at the end moves along with it. */
export function follow(view: View, before: number, after: number): View {
  if (view.fit || after <= before) return view
  const width = view.x1 - view.x0
  // At the end: its right edge within 2 % of its width of the old end.
  if (view.x1 < before - width * 0.02) return view
  const shift = after - before
  return { x0: view.x0 + shift, x1: view.x1 + shift, fit: false }
}
