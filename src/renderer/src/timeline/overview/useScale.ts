import { useCallback, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react'
import { axisOf, type Axis } from './axis'
import { GUTTER, rowsOf, type Row, type Scale } from './layout'
import type { SpanModel } from './spans'
import { FIT, follow, resolve, type View } from './view'

/*
 * The overview's geometry over time: the plot's width, its rows, the clock running bars grow
 * with, and the scale of a moment (the axis to then, resolved through the zoomed view).
 */

/** The element's width, kept up to date as it resizes. */
export function useWidth(host: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0)
  useLayoutEffect(() => {
    const el = host.current
    if (!el) return
    // eslint-disable-next-line react-hooks/set-state-in-effect -- measured after layout: the DOM has the first width
    setWidth(el.clientWidth)
    const observer = new ResizeObserver(([entry]) => setWidth(Math.round(entry.contentRect.width)))
    observer.observe(el)
    return () => observer.disconnect()
  }, [host])
  return width
}

export interface OverviewScale {
  rows: Row[]
  height: number
  /** The time running bars are drawn to: now while a turn runs, else where the events end. */
  clock(): number
  /** The scale at a moment; null before the model or a usable width. */
  scaleAt(at: number): Scale | null
  /** The zoom and pan; `viewRef` holds it between renders for handlers and the paint. */
  view: View
  viewRef: RefObject<View>
  setView(view: View): void
}

export function useScale(
  model: SpanModel | null,
  version: number,
  width: number,
  running: boolean,
): OverviewScale {
  const [view, setViewState] = useState<View>(FIT)
  const viewRef = useRef(view)
  const setView = useCallback((v: View) => {
    viewRef.current = v
    setViewState(v)
  }, [])

  const { rows, height } = useMemo(
    () => (model ? rowsOf(model) : { rows: [], height: 0 }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the model changes in place; version says when
    [model, version],
  )
  // A turn that runs grows with the clock; one that never finished (the app closed mid-turn)
  // ends where its events end.
  const clock = useCallback(
    (): number => (running || !model ? Date.now() : (model.lastTs ?? Date.now())),
    [running, model],
  )
  const lastTotal = useRef(0)
  const axisCache = useRef<{ model: SpanModel; version: number; axis: Axis } | null>(null)
  /** The scale for this moment: the axis to now, the view following a growing end. */
  const scaleAt = useCallback(
    (at: number): Scale | null => {
      if (!model || width <= GUTTER + 20) return null
      // A finished session's axis changes only with its events.
      const cached = axisCache.current
      const still = !model.live || !running
      const axis =
        still && cached?.model === model && cached.version === model.version ? cached.axis : axisOf(model, at)
      if (still) axisCache.current = { model, version: model.version, axis }
      if (axis.total !== lastTotal.current) {
        viewRef.current = follow(viewRef.current, lastTotal.current, axis.total)
        lastTotal.current = axis.total
      }
      const { x0, x1 } = resolve(viewRef.current, axis.total)
      return { axis, x0, x1, plotW: width - GUTTER - 8 }
    },
    [model, width, running],
  )
  return { rows, height, clock, scaleAt, view, viewRef, setView }
}
