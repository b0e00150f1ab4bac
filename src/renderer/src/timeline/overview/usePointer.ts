import { useEffect, useLayoutEffect, useRef } from 'react'
import type React from 'react'
import { GUTTER, hitTest, RULER_H, timeOfPx, type Hit, type Row, type Scale } from './layout'
import type { SpanModel } from './spans'
import { pan, zoom, type View } from './view'

/**
 * Mouse and wheel on the overview, as in a trace viewer: drag to pan, wheel to zoom at
 * the pointer (Shift or a sideways wheel pans), drag on the ruler (or Shift+drag
 * anywhere) to brush a range; in replay, dragging on the ruler scrubs. A press that
 * does not move is a click on whatever bar is under it.
 */

export interface PointerState {
  model: SpanModel | null
  scale: Scale | null
  rows: readonly Row[]
  view: View
  replaying: boolean
  /** The clock running bars are drawn to. */
  now: number
}

export interface PointerActions {
  setView(view: View): void
  hover(hit: Hit | null, x: number, y: number): void
  pick(hit: Hit): void
  /** The range being brushed (done: the drag ended), or null to clear it. */
  brush(range: { from: number; to: number } | null, done: boolean): void
  scrubTo(time: number): void
}

interface Drag {
  x: number
  mode: 'pan' | 'brush' | 'scrub'
  view: View
  moved: boolean
  from: number
}

const MOVE_PX = 3

/** What the handlers read when they run: the props of the last render. */
type Latest = React.RefObject<{ state: PointerState; actions: PointerActions }>

/** The wheel zooms at the pointer; Shift or a sideways wheel pans. */
function useWheel(host: React.RefObject<HTMLDivElement | null>, latest: Latest): void {
  // React's wheel listener is passive; zooming must stop the page from scrolling.
  useEffect(() => {
    const el = host.current
    if (!el) return
    const onWheel = (e: WheelEvent): void => {
      const { state: s, actions: a } = latest.current
      if (!s.scale) return
      const rect = el.getBoundingClientRect()
      const x = e.clientX - rect.left
      const { scale } = s
      e.preventDefault()
      const sideways = Math.abs(e.deltaX) > Math.abs(e.deltaY)
      if (sideways || e.shiftKey) {
        const d = sideways ? e.deltaX : e.deltaY
        a.setView(pan(s.view, scale.axis.total, (d / scale.plotW) * (scale.x1 - scale.x0)))
      } else {
        const anchor = Math.max(0, Math.min(1, (x - GUTTER) / scale.plotW))
        a.setView(zoom(s.view, scale.axis.total, Math.exp(e.deltaY * 0.002), anchor))
      }
    }
    el.addEventListener('wheel', onWheel, { passive: false })
    return () => el.removeEventListener('wheel', onWheel)
  }, [host, latest])
}

export function usePointer(
  host: React.RefObject<HTMLDivElement | null>,
  state: PointerState,
  actions: PointerActions,
): Pick<
  React.HTMLAttributes<HTMLDivElement>,
  'onPointerDown' | 'onPointerMove' | 'onPointerUp' | 'onPointerLeave' | 'onPointerCancel'
> {
  const latest = useRef({ state, actions })
  useLayoutEffect(() => {
    latest.current = { state, actions }
  })
  const drag = useRef<Drag | null>(null)

  useWheel(host, latest)

  const local = (e: React.PointerEvent): { x: number; y: number } => {
    const rect = e.currentTarget.getBoundingClientRect()
    return { x: e.clientX - rect.left, y: e.clientY - rect.top }
  }
  const hitAt = (x: number, y: number): Hit | null => {
    const { model, scale, rows, now } = latest.current.state
    return model && scale ? hitTest({ model, scale, rows, now }, x, y) : null
  }

  return {
    onPointerDown(e) {
      const { state: s } = latest.current
      if (e.button !== 0 || !s.scale || !s.model) return
      const { x, y } = local(e)
      const onRuler = y < RULER_H
      const mode = s.replaying && onRuler && !e.shiftKey ? 'scrub' : onRuler || e.shiftKey ? 'brush' : 'pan'
      drag.current = { x, mode, view: s.view, moved: false, from: timeOfPx(s.scale, x) }
      e.currentTarget.setPointerCapture?.(e.pointerId)
    },
    onPointerMove(e) {
      const { state: s, actions: a } = latest.current
      const { x, y } = local(e)
      const d = drag.current
      if (!d || !s.scale) {
        a.hover(hitAt(x, y), x, y)
        return
      }
      if (Math.abs(x - d.x) > MOVE_PX) d.moved = true
      if (!d.moved) return
      const t = timeOfPx(s.scale, x)
      if (d.mode === 'pan') {
        const perPx = (s.scale.x1 - s.scale.x0) / s.scale.plotW
        a.setView(pan(d.view, s.scale.axis.total, (d.x - x) * perPx))
      } else if (d.mode === 'brush') a.brush({ from: Math.min(d.from, t), to: Math.max(d.from, t) }, false)
      else a.scrubTo(t)
      a.hover(null, x, y)
    },
    onPointerUp(e) {
      const { state: s, actions: a } = latest.current
      const d = drag.current
      drag.current = null
      if (!d || !s.scale) return
      const { x, y } = local(e)
      const t = timeOfPx(s.scale, x)
      if (d.moved) {
        if (d.mode === 'brush') a.brush({ from: Math.min(d.from, t), to: Math.max(d.from, t) }, true)
        return
      }
      if (d.mode === 'scrub') return a.scrubTo(t)
      const hit = hitAt(x, y)
      if (hit) a.pick(hit)
      // A click on the ruler's empty space clears the brush.
      else if (d.mode === 'brush') a.brush(null, true)
    },
    onPointerLeave() {
      if (!drag.current) latest.current.actions.hover(null, 0, 0)
    },
    onPointerCancel() {
      drag.current = null
    },
  }
}
