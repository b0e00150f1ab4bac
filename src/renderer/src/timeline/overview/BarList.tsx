import { memo } from 'react'
import type React from 'react'
import { barName, type PriceOf } from './labels'
import { GUTTER, pxOfTime, spanPx, type Row, type Scale } from './layout'
import { isSpan, type Mark, type Span } from './spans'

/**
 * The bars as elements: the canvas draws them, these make them reachable. One button per
 * bar over its place on the canvas, transparent, with the step's seq and an accessible
 * name; a window of them around the focused bar, so 10,000 steps stay a few hundred elements.
 */

export interface BarListProps {
  items: ReadonlyArray<Span | Mark>
  from: number
  to: number
  scale: Scale
  rows: readonly Row[]
  width: number
  now: number
  selectedSeq: number | null
  /** The one bar reachable with Tab. */
  tabSeq: number | null
  priceOf?: PriceOf
  /** A keyboard press on a bar (Enter, Space): pointer clicks are the canvas's. */
  onActivate(item: Span | Mark): void
  onFocusBar(item: Span | Mark): void
}

const MIN_W = 6

function place(item: Span | Mark, p: BarListProps): React.CSSProperties {
  let a: number
  let b: number
  let row: Row | undefined
  if (isSpan(item)) {
    ;[a, b] = spanPx(p.scale, item, p.now)
    row = p.rows.find((r) => r.lane === item.lane)
  } else {
    a = pxOfTime(p.scale, item.ts) - 5
    b = a + 10
    row = p.rows.find((r) => r.id === 'marks')
  }
  // Out of the window: parked at its edge, still focusable (focusing it pans there).
  const right = p.width - MIN_W
  a = Math.max(GUTTER, Math.min(right, a))
  b = Math.max(a + MIN_W, Math.min(p.width, b))
  return { left: a, top: row?.y ?? 0, width: b - a, height: row?.h ?? 10 }
}

function statusOf(item: Span | Mark): string {
  if (isSpan(item)) return item.status
  return item.bad ? 'error' : 'ok'
}

function BarListImpl(p: BarListProps): React.JSX.Element {
  const shown = p.items.slice(p.from, p.to)
  return (
    <div className="ov-bars" role="list" aria-label="Steps on the time axis">
      {shown.map((item) => (
        <div role="listitem" key={item.seq} className="ov-bar-item">
          <button
            type="button"
            className="ov-bar"
            data-testid="timeline-bar"
            data-seq={item.seq}
            data-bar-kind={item.kind}
            data-bar-status={statusOf(item)}
            aria-label={barName(item, p.now, p.priceOf)}
            aria-pressed={item.seq === p.selectedSeq}
            tabIndex={item.seq === p.tabSeq ? 0 : -1}
            style={place(item, p)}
            onClick={(e) => {
              if (e.detail === 0) p.onActivate(item)
            }}
            onFocus={() => p.onFocusBar(item)}
          />
        </div>
      ))}
    </div>
  )
}

export const BarList = memo(BarListImpl)
