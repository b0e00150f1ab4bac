import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react'
import { drawOverview, type Frame } from './draw'
import { readPalette, watchTheme, type Palette } from './palette'
import { timeWork } from './stats'
import type { OverviewScale } from './useScale'
import type { SpanModel } from './spans'

/*
 * The overview's drawing: the canvas is painted after every render (new events, a hover, a
 * zoom), and while a turn runs, on animation frames at most every CLOCK_MS so running bars grow.
 */

/** How often running bars grow when no event arrives: smooth enough, and a fraction of the frames. */
const CLOCK_MS = 50

/** The theme's colours, read from the probe's styled spans and again when the theme changes. */
function usePaletteOf(probe: RefObject<HTMLElement | null>): Palette | null {
  const [palette, setPalette] = useState<Palette | null>(null)
  useLayoutEffect(() => {
    const read = (): void => {
      if (probe.current) setPalette(readPalette(probe.current))
    }
    read()
    return watchTheme(read)
  }, [probe])
  return palette
}

/** What a paint shows beside the model and the scale: the selection, hover, brush, playhead, prices. */
export type PaintMarks = Pick<Frame, 'selectedSeq' | 'hoverSeq' | 'brush' | 'playhead' | 'priceOf'>

export interface PaintTarget {
  canvas: RefObject<HTMLCanvasElement | null>
  /** The hidden element whose spans carry the theme's colours. */
  probe: RefObject<HTMLElement | null>
  model: SpanModel | null
  width: number
  /** A turn runs: running bars grow with the clock. */
  running: boolean
}

export function usePaint(target: PaintTarget, geometry: OverviewScale, marks: PaintMarks): void {
  const { canvas, model, width, running } = target
  const palette = usePaletteOf(target.probe)
  const { clock, scaleAt, rows, height } = geometry
  const paint = useRef<() => void>(() => {})
  const lastPaint = useRef(0)
  paint.current = () => {
    const c = canvas.current
    if (!c || !model || !palette || width === 0) return
    lastPaint.current = performance.now()
    timeWork(() => {
      const at = clock()
      const s = scaleAt(at)
      if (!s) return
      const dpr = window.devicePixelRatio || 1
      if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
        c.width = Math.round(width * dpr)
        c.height = Math.round(height * dpr)
      }
      const ctx = c.getContext('2d')
      if (!ctx) return
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
      drawOverview({ ctx, width, height, model, scale: s, rows, now: at, palette, ...marks })
    })
  }
  useLayoutEffect(() => paint.current())

  // Running bars grow with the clock: repaint while something runs, at most every CLOCK_MS
  // (new events repaint at once, from the layout effect above).
  const live = (model?.live ?? false) && running
  useEffect(() => {
    if (!live) return
    let frame = requestAnimationFrame(function tick() {
      // Not when an event has just repainted it.
      if (performance.now() - lastPaint.current >= CLOCK_MS) paint.current()
      frame = requestAnimationFrame(tick)
    })
    return () => cancelAnimationFrame(frame)
  }, [live])
}
