import { useCallback, useEffect, useRef, useState } from 'react'
import type React from 'react'
import { isBusy, select, setBrush, useApp } from '../../state/store'
import { seek, useReplayActive, useReplayPosition } from '../../replay/useReplay'
import { toAxis } from './axis'
import { BarList } from './BarList'
import { barText, type BarText } from './labels'
import { barWindow, eventCountAt, eventCountOfSeq, itemIndexAt, type Hit, type Scale } from './layout'
import { OverviewHeader } from './OverviewHeader'
import { PALETTE_KEYS } from './palette'
import { isSpan, type Mark, type Span, type SpanModel } from './spans'
import { tipAt, useBarKeys } from './useBarKeys'
import { usePaint } from './usePaint'
import { usePointer, type PointerState } from './usePointer'
import { usePriceOf } from './usePriceOf'
import { useScale, useWidth } from './useScale'
import { useSpanModel } from './useSpanModel'
import { FIT, reveal, type View } from './view'

/** Bars rendered as elements at once (the canvas draws all of them). */
const BAR_WINDOW = 200

/**
 * The overview itself: header, canvas, bar buttons and tooltip. Its parts: the geometry over
 * time (`useScale`), the drawing (`usePaint`), the pointer (`usePointer`) and the keyboard
 * (`useBarKeys`).
 */
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
  const width = useWidth(host)

  const { focusSeq, setFocusSeq, pick } = useFocusedBar(model, replaying)
  const running = useApp(isBusy)
  const geometry = useScale(model, version, width, running)
  const { rows, height, view, setView } = geometry
  const now = geometry.clock()
  const scale = geometry.scaleAt(now)
  const playhead = replaying && model && replayCount > 0 ? (model.eventTs[replayCount - 1] ?? null) : null

  const { pointer, hover, draft } = useChartPointer(
    host,
    { model, scale, rows, view, replaying, now },
    { setView, pick },
  )

  usePaint({ canvas, probe, model, width, running }, geometry, {
    selectedSeq,
    hoverSeq: hover?.item.seq ?? null,
    brush: draft ?? brush,
    playhead,
    priceOf,
  })

  const items = model?.items ?? []

  useRevealSelection({ selectedSeq, model, scale, now, geometry, setFocusSeq })

  const { focusIndex, from, to, tabSeq } = keyboardWindow(items, focusSeq)
  const { onKeyDown, zoomBy } = useBarKeys(
    { host, model, items, focusIndex, scale, now, selectedSeq, brush, pick },
    geometry,
  )

  // Whether focus is in the chart is the DOM's to say: read at render.
  const focused =
    // eslint-disable-next-line react-hooks/refs -- reads where focus is, not React state
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
        {tip && tipText && <BarTip tip={tip} text={tipText} width={width} />}
      </div>
      <PaletteProbe probe={probe} />
    </>
  )
}

/** The bar the keyboard is on, and picking one: selected as a step, and sought to in replay. */
function useFocusedBar(model: SpanModel | null, replaying: boolean) {
  const [focusSeq, setFocusSeq] = useState<number | null>(null)
  const pick = useCallback(
    (item: Span | Mark) => {
      select(item.seq)
      setFocusSeq(item.seq)
      if (replaying && model) seek(eventCountOfSeq(model, isSpan(item) ? item.lastSeq : item.seq))
    },
    [replaying, model],
  )
  return { focusSeq, setFocusSeq, pick }
}

/** The bar the keyboard is on (the last one until one is focused), and the bars rendered as elements around it. */
function keyboardWindow(items: ReadonlyArray<Span | Mark>, focusSeq: number | null) {
  const focusIndex = focusSeq === null ? items.length - 1 : Math.max(0, itemIndexAt(items, focusSeq))
  const [from, to] = barWindow(items.length, focusIndex, BAR_WINDOW)
  const tabSeq = items[focusIndex]?.seq ?? null
  return { focusIndex, from, to, tabSeq }
}

interface RevealSelection {
  selectedSeq: number | null
  model: SpanModel | null
  scale: Scale | null
  now: number
  geometry: Pick<ReturnType<typeof useScale>, 'viewRef' | 'setView'>
  setFocusSeq(seq: number): void
}

/** A step selected elsewhere (a row): its bar comes into view and into the keyboard's window. */
function useRevealSelection({
  selectedSeq,
  model,
  scale,
  now,
  geometry,
  setFocusSeq,
}: RevealSelection): void {
  useEffect(() => {
    if (selectedSeq === null || !model || !scale) return
    const item = model.find(selectedSeq)
    if (!item) return
    const [a, b] = isSpan(item)
      ? [toAxis(scale.axis, item.start), toAxis(scale.axis, item.end ?? now)]
      : [toAxis(scale.axis, item.ts), toAxis(scale.axis, item.ts)]
    const next = reveal(geometry.viewRef.current, scale.axis.total, a, b)
    if (next !== geometry.viewRef.current) geometry.setView(next)
    setFocusSeq(selectedSeq)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the selection changes
  }, [selectedSeq])
}

type Hover = { item: Span | Mark; x: number; y: number }

/** The pointer on the chart: what it hovers, the range it is brushing, and the handlers for the plot. */
function useChartPointer(
  host: React.RefObject<HTMLDivElement | null>,
  state: PointerState,
  chart: { setView(view: View): void; pick(item: Span | Mark): void },
): {
  pointer: ReturnType<typeof usePointer>
  hover: Hover | null
  draft: { from: number; to: number } | null
} {
  const [hover, setHover] = useState<Hover | null>(null)
  const [draft, setDraft] = useState<{ from: number; to: number } | null>(null)
  const { model } = state
  const { setView, pick } = chart
  const pointer = usePointer(host, state, {
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
  })

  return { pointer, hover, draft }
}

/** The tooltip of the bar hovered or focused. */
function BarTip({ tip, text, width }: { tip: Hover; text: BarText; width: number }): React.JSX.Element {
  return (
    <div
      className="ov-tip"
      role="tooltip"
      style={{ left: Math.min(tip.x + 12, Math.max(0, width - 260)), top: tip.y + 14 }}
    >
      <strong>{text.title}</strong>
      {text.lines.map((line) => (
        <span key={line}>{line}</span>
      ))}
    </div>
  )
}

/** Hidden elements whose CSS colours the canvas reads (palette.ts). */
function PaletteProbe({ probe }: { probe: React.RefObject<HTMLDivElement | null> }): React.JSX.Element {
  return (
    <div ref={probe} className="ov-palette" aria-hidden="true">
      {PALETTE_KEYS.map((key) => (
        <span key={key} data-c={key} />
      ))}
    </div>
  )
}
