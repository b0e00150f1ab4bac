import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type React from 'react'
import { isBusy, select, setBrush, useApp } from '../../state/store'
import { seek, useReplayActive, useReplayPosition } from '../../replay/useReplay'
import { axisOf, toAxis, type Axis } from './axis'
import { BarList } from './BarList'
import { drawOverview } from './draw'
import { barText, isSpan } from './labels'
import {
  barWindow,
  eventCountAt,
  eventCountOfSeq,
  GUTTER,
  itemIndexAt,
  pxOfTime,
  rowsOf,
  spanPx,
  type Hit,
  type Scale,
} from './layout'
import { OverviewHeader } from './OverviewHeader'
import { PALETTE_KEYS, readPalette, watchTheme, type Palette } from './palette'
import type { Mark, Span, SpanModel } from './spans'
import { timeWork } from './stats'
import { usePointer } from './usePointer'
import { usePriceOf } from './usePriceOf'
import { useSpanModel } from './useSpanModel'
import { FIT, pan, reveal, follow, resolve, zoom, type View } from './view'

/** Bars rendered as elements at once (the canvas draws all of them). */
const BAR_WINDOW = 200
/** How often running bars grow when no event arrives: smooth enough, and a fraction of the frames. */
const CLOCK_MS = 50

/** The overview itself: header, canvas, bar buttons and tooltip. */
export function OverviewChart({ onHide }: { onHide(): void }): React.JSX.Element {
  const { model, version } = useSpanModel()
  const selectedSeq = useApp((s) => s.selectedSeq)
  const brush = useApp((s) => s.brush)
  const replaying = useReplayActive()
  const { count: replayCount } = useReplayPosition()
  const priceOf = usePriceOf()
  const host = useRef<HTMLDivElement>(null)
  const canvas = useRef<HTMLCanvasElement>(null)
  const probe = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  const [palette, setPalette] = useState<Palette | null>(null)
  const [view, setViewState] = useState<View>(FIT)
  const viewRef = useRef(view)
  const [hover, setHover] = useState<{ item: Span | Mark; x: number; y: number } | null>(null)
  const [draft, setDraft] = useState<{ from: number; to: number } | null>(null)
  const [focusSeq, setFocusSeq] = useState<number | null>(null)
  const pendingFocus = useRef<number | null>(null)

  const setView = useCallback((v: View) => {
    viewRef.current = v
    setViewState(v)
  }, [])

  useLayoutEffect(() => {
    const el = host.current
    if (!el) return
    setWidth(el.clientWidth)
    const observer = new ResizeObserver(([entry]) => setWidth(Math.round(entry.contentRect.width)))
    observer.observe(el)
    return () => observer.disconnect()
  }, [])

  useLayoutEffect(() => {
    const read = (): void => {
      if (probe.current) setPalette(readPalette(probe.current))
    }
    read()
    return watchTheme(read)
  }, [])

  const { rows, height } = useMemo(
    () => (model ? rowsOf(model) : { rows: [], height: 0 }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the model changes in place; version says when
    [model, version],
  )
  // A turn that runs grows with the clock; one that never finished (the app closed mid-turn)
  // ends where its events end.
  const running = useApp(isBusy)
  const clock = useCallback(
    (): number => (running || !model ? Date.now() : (model.lastTs ?? Date.now())),
    [running, model],
  )
  const now = clock()
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
  const scale = scaleAt(now)
  const playhead = replaying && model && replayCount > 0 ? (model.eventTs[replayCount - 1] ?? null) : null

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
      drawOverview({
        ctx,
        width,
        height,
        model,
        scale: s,
        rows,
        now: at,
        palette,
        selectedSeq,
        hoverSeq: hover?.item.seq ?? null,
        brush: draft ?? brush,
        playhead,
        priceOf,
      })
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

  const items = model?.items ?? []
  const total = scale?.axis.total ?? 0

  // A step selected elsewhere (a row): its bar comes into view and into the keyboard's window.
  useEffect(() => {
    if (selectedSeq === null || !model || !scale) return
    const item = model.find(selectedSeq)
    if (!item) return
    const [a, b] = isSpan(item)
      ? [toAxis(scale.axis, item.start), toAxis(scale.axis, item.end ?? now)]
      : [toAxis(scale.axis, item.ts), toAxis(scale.axis, item.ts)]
    const next = reveal(viewRef.current, scale.axis.total, a, b)
    if (next !== viewRef.current) setView(next)
    setFocusSeq(selectedSeq)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the selection changes
  }, [selectedSeq])

  const pick = useCallback(
    (item: Span | Mark) => {
      select(item.seq)
      setFocusSeq(item.seq)
      if (replaying && model) seek(eventCountOfSeq(model, isSpan(item) ? item.lastSeq : item.seq))
    },
    [replaying, model],
  )

  const pointer = usePointer(
    host,
    { model, scale, rows, view, replaying, now },
    {
      setView,
      hover: (hit: Hit | null, x: number, y: number) => {
        const item = hit?.span ?? hit?.mark ?? null
        setHover((h) => (item ? { item, x, y } : h ? null : h))
      },
      pick: (hit) => pick(hit.span ?? hit.mark),
      brush: (range, done) => {
        setDraft(done ? null : range)
        if (done) setBrush(range)
      },
      scrubTo: (t) => model && seek(Math.max(1, eventCountAt(model, t))),
    },
  )

  const focusIndex = focusSeq === null ? items.length - 1 : Math.max(0, itemIndexAt(items, focusSeq))
  const [from, to] = barWindow(items.length, focusIndex, BAR_WINDOW)
  const tabSeq = items[focusIndex]?.seq ?? null

  const moveFocus = (index: number): void => {
    const item = items[Math.max(0, Math.min(items.length - 1, index))]
    if (!item) return
    pendingFocus.current = item.seq
    pick(item)
  }
  useLayoutEffect(() => {
    const seq = pendingFocus.current
    if (seq === null) return
    pendingFocus.current = null
    host.current?.querySelector<HTMLElement>(`[data-testid="timeline-bar"][data-seq="${seq}"]`)?.focus()
  })

  const zoomBy = (factor: number): void => {
    const sel = selectedSeq === null || !scale ? undefined : model?.find(selectedSeq)
    let anchor = 0.5
    if (sel && scale) {
      const x = isSpan(sel) ? spanPx(scale, sel, now)[0] : pxOfTime(scale, sel.ts)
      anchor = Math.max(0, Math.min(1, (x - GUTTER) / scale.plotW))
    }
    setView(zoom(viewRef.current, total, factor, anchor))
  }

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>): void => {
    if (e.altKey || e.ctrlKey || e.metaKey) return
    const width = scale ? scale.x1 - scale.x0 : 0
    switch (e.key) {
      case 'ArrowRight':
      case 'ArrowLeft':
        if (e.shiftKey) setView(pan(viewRef.current, total, (e.key === 'ArrowRight' ? 0.2 : -0.2) * width))
        else moveFocus(focusIndex + (e.key === 'ArrowRight' ? 1 : -1))
        break
      case 'ArrowDown':
      case 'ArrowUp':
        moveFocus(focusIndex + (e.key === 'ArrowDown' ? 1 : -1))
        break
      case 'Home':
        moveFocus(0)
        break
      case 'End':
        moveFocus(items.length - 1)
        break
      case '+':
      case '=':
        zoomBy(0.5)
        break
      case '-':
      case '_':
        zoomBy(2)
        break
      case '0':
        setView(FIT)
        break
      case 'Escape':
        if (!brush) return
        setBrush(null)
        break
      default:
        return
    }
    // Handled here: replay's own ← → and Esc on the window must not act on it again.
    e.preventDefault()
    e.stopPropagation()
  }

  const focused =
    focusSeq !== null && host.current?.contains(document.activeElement) ? model?.find(focusSeq) : undefined
  const tip = hover ?? (focused && scale ? tipAt(focused, scale, rows, now) : null)
  const tipText = tip ? barText(tip.item, now, priceOf) : null

  return (
    <>
      <OverviewHeader
        brush={brush}
        onZoom={(f) => (f === 0 ? setView(FIT) : zoomBy(f))}
        onClearBrush={() => setBrush(null)}
        onHide={onHide}
      />
      <div
        ref={host}
        className={`ov-plot${replaying ? ' is-replay' : ''}`}
        style={{ height: height || 120 }}
        onKeyDown={onKeyDown}
        {...pointer}
      >
        <canvas ref={canvas} className="ov-canvas" style={{ width, height }} aria-hidden="true" />
        {scale && (
          <BarList
            items={items}
            from={from}
            to={to}
            scale={scale}
            rows={rows}
            width={width}
            now={now}
            selectedSeq={selectedSeq}
            tabSeq={tabSeq}
            priceOf={priceOf}
            onActivate={pick}
            onFocusBar={(item) => setFocusSeq(item.seq)}
          />
        )}
        {tip && tipText && (
          <div
            className="ov-tip"
            role="tooltip"
            style={{ left: Math.min(tip.x + 12, Math.max(0, width - 260)), top: tip.y + 14 }}
          >
            <strong>{tipText.title}</strong>
            {tipText.lines.map((line) => (
              <span key={line}>{line}</span>
            ))}
          </div>
        )}
      </div>
      <div ref={probe} className="ov-palette" aria-hidden="true">
        {PALETTE_KEYS.map((key) => (
          <span key={key} data-c={key} />
        ))}
      </div>
    </>
  )
}

/** Where a keyboard-focused bar's tooltip goes: under the bar. */
function tipAt(
  item: Span | Mark,
  scale: Scale,
  rows: ReturnType<typeof rowsOf>['rows'],
  now: number,
): { item: Span | Mark; x: number; y: number } {
  const row = isSpan(item) ? rows.find((r) => r.lane === item.lane) : rows.find((r) => r.id === 'marks')
  const x = isSpan(item) ? spanPx(scale, item, now)[0] : pxOfTime(scale, item.ts)
  return { item, x: Math.max(GUTTER, x), y: (row?.y ?? 0) + (row?.h ?? 0) }
}
