import { useLayoutEffect, useRef, type RefObject } from 'react'
import type React from 'react'
import { setBrush } from '../../state/store'
import { GUTTER, pxOfTime, rowsOf, spanPx, type Scale } from './layout'
import { isSpan, type Mark, type Span, type SpanModel } from './spans'
import type { OverviewScale } from './useScale'
import { FIT, pan, zoom } from './view'

/*
 * The overview from the keyboard: ← → ↑ ↓ Home End move between bars (selecting them), Shift+← →
 * pans, + − 0 zoom, Esc clears a brushed range. The bar moved to gets the focus after the render.
 */

export interface BarKeysInput {
  host: RefObject<HTMLElement | null>
  model: SpanModel | null
  items: ReadonlyArray<Span | Mark>
  /** The bar the keyboard stands on. */
  focusIndex: number
  scale: Scale | null
  now: number
  selectedSeq: number | null
  brush: { from: number; to: number } | null
  /** Selects a bar (and seeks to it in replay). */
  pick(item: Span | Mark): void
}

export interface BarKeys {
  onKeyDown(e: React.KeyboardEvent<HTMLElement>): void
  /** Zooms by `factor` about the selected bar (the middle when none is). */
  zoomBy(factor: number): void
}

export function useBarKeys(input: BarKeysInput, geometry: OverviewScale): BarKeys {
  const { host, model, items, focusIndex, scale, now, selectedSeq, brush, pick } = input
  const { viewRef, setView } = geometry
  const total = scale?.axis.total ?? 0
  const pendingFocus = useRef<number | null>(null)

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

  /** Acts on a key; false when the key is not the overview's. */
  const act = (e: React.KeyboardEvent<HTMLElement>): boolean => {
    const width = scale ? scale.x1 - scale.x0 : 0
    switch (e.key) {
      case 'ArrowRight':
      case 'ArrowLeft':
        if (e.shiftKey) setView(pan(viewRef.current, total, (e.key === 'ArrowRight' ? 0.2 : -0.2) * width))
        else moveFocus(focusIndex + (e.key === 'ArrowRight' ? 1 : -1))
        return true
      case 'ArrowDown':
      case 'ArrowUp':
        moveFocus(focusIndex + (e.key === 'ArrowDown' ? 1 : -1))
        return true
      case 'Home':
        moveFocus(0)
        return true
      case 'End':
        moveFocus(items.length - 1)
        return true
      case '+':
      case '=':
        zoomBy(0.5)
        return true
      case '-':
      case '_':
        zoomBy(2)
        return true
      case '0':
        setView(FIT)
        return true
      case 'Escape':
        if (!brush) return false
        setBrush(null)
        return true
      default:
        return false
    }
  }

  const onKeyDown = (e: React.KeyboardEvent<HTMLElement>): void => {
    if (e.altKey || e.ctrlKey || e.metaKey || !act(e)) return
    // Handled here: replay's own ← → and Esc on the window must not act on it again.
    e.preventDefault()
    e.stopPropagation()
  }
  return { onKeyDown, zoomBy }
}

/** Where a keyboard-focused bar's tooltip goes: under the bar. */
export function tipAt(
  item: Span | Mark,
  scale: Scale,
  rows: ReturnType<typeof rowsOf>['rows'],
  now: number,
): { item: Span | Mark; x: number; y: number } {
  const row = isSpan(item) ? rows.find((r) => r.lane === item.lane) : rows.find((r) => r.id === 'marks')
  const x = isSpan(item) ? spanPx(scale, item, now)[0] : pxOfTime(scale, item.ts)
  return { item, x: Math.max(GUTTER, x), y: (row?.y ?? 0) + (row?.h ?? 0) }
}
