import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type React from 'react'
import type { TimelineStep } from '../../../shared/reducer'
import { foldCheckpoints } from './fold'
import { Overview, useBrushedSteps } from './overview'
import { indexOfSeq } from './seq'
import { TimelineRow } from './TimelineRow'
import './timeline.css'

export interface TimelineProps {
  steps: readonly TimelineStep[]
  /** seq of the selected step (details shown by the parent), or null. */
  selectedSeq: number | null
  onSelect(seq: number): void
  /** Follow the newest step while the user is at the bottom (live sessions). */
  follow: boolean
}

/** Within this many pixels of the end counts as "at the bottom". */
const BOTTOM_SLACK = 32
/** A keyboard move focuses its row when it renders; after this long the move is stale. */
const FOCUS_WINDOW_MS = 1000

const ESTIMATES: Partial<Record<TimelineStep['kind'], number>> = {
  user: 48,
  model: 48,
  tool: 28,
  error: 46,
  finding: 28,
  fork: 28,
  verify: 46,
}

function estimate(step: TimelineStep | undefined): number {
  return (step && ESTIMATES[step.kind]) ?? 28
}

function rowIndexOf(target: EventTarget | null): number | null {
  const row = target instanceof Element ? target.closest<HTMLElement>('[role="listitem"][data-index]') : null
  return row ? Number(row.dataset.index) : null
}

/**
 * A row's height from its ResizeObserver entry, which the browser delivers after layout and
 * before paint. A new row has none yet: it keeps its current size (the estimate) until the entry
 * arrives in the same frame, so appending rows never forces a synchronous layout.
 */
function measureRow(
  el: HTMLDivElement,
  entry: ResizeObserverEntry | undefined,
  instance: {
    measurementsCache: ReadonlyArray<{ size: number }>
    options: { estimateSize(i: number): number }
  },
): number {
  const box = entry?.borderBoxSize?.[0]
  if (box) return Math.round(box.blockSize)
  const index = Number(el.dataset.index)
  return instance.measurementsCache[index]?.size ?? instance.options.estimateSize(index)
}

/** What a key does on the list: move to a row, select the current one, or nothing of ours. */
function keyTarget(key: string, current: number, count: number): number | 'select' | null {
  switch (key) {
    case 'ArrowDown':
      return current + 1
    case 'ArrowUp':
      return current - 1
    case 'Home':
      return 0
    case 'End':
      return count - 1
    case 'Enter':
    case ' ':
      return 'select'
    default:
      return null
  }
}

/** The virtual list over the steps, and whether the reader is at its end. */
function useTimelineVirtualizer(
  steps: readonly TimelineStep[],
  scrollRef: React.RefObject<HTMLDivElement | null>,
  follow: boolean,
) {
  const [atBottom, setAtBottom] = useState(true)
  // Stable per steps array: the virtualizer recomputes all item offsets when these change.
  const estimateSize = useCallback((i: number) => estimate(steps[i]), [steps])
  const getItemKey = useCallback((i: number) => steps[i]?.seq ?? i, [steps])

  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read in render on purpose
  const virtualizer = useVirtualizer<HTMLDivElement, HTMLDivElement>({
    count: steps.length,
    getScrollElement: () => scrollRef.current,
    estimateSize,
    getItemKey,
    overscan: 8,
    // Chat-style anchoring: appended or growing steps keep a reader at the end there.
    anchorTo: follow ? 'end' : 'start',
    followOnAppend: follow,
    scrollEndThreshold: BOTTOM_SLACK,
    // A live burst re-renders in React's own batch, not synchronously inside each scroll update.
    useFlushSync: false,
    measureElement: measureRow,
    // From the virtualizer's own numbers: reading scrollHeight here would force a layout per scroll event.
    onChange: (v) => {
      const distance = v.getTotalSize() - (v.scrollOffset ?? 0) - (v.scrollRect?.height ?? 0)
      setAtBottom(distance <= BOTTOM_SLACK)
    },
  })
  return { virtualizer, atBottom }
}

type TimelineVirtualizer = ReturnType<typeof useTimelineVirtualizer>['virtualizer']

function useOpenAtEnd(count: number, follow: boolean, virtualizer: TimelineVirtualizer): void {
  // A live session opens at its newest step. After a frame, once the list has a size; the
  // cleanup cancels it, so StrictMode's second mount schedules it again.
  const openedAtEnd = useRef(false)
  useEffect(() => {
    if (openedAtEnd.current || count === 0) return
    if (!follow) {
      openedAtEnd.current = true
      return
    }
    const frame = requestAnimationFrame(() => {
      openedAtEnd.current = true
      virtualizer.scrollToEnd()
    })
    return () => cancelAnimationFrame(frame)
  }, [count, follow, virtualizer])
}

/** Keyboard moves: the row to focus once the virtualizer has rendered it (a move goes stale after a while). */
function useFocusWhenRendered(scrollRef: React.RefObject<HTMLDivElement | null>): (index: number) => void {
  const pendingFocus = useRef<{ index: number; at: number } | null>(null)
  useLayoutEffect(() => {
    const pending = pendingFocus.current
    if (!pending) return
    if (performance.now() - pending.at > FOCUS_WINDOW_MS) {
      pendingFocus.current = null
      return
    }
    const el = scrollRef.current?.querySelector<HTMLElement>(
      `[role="listitem"][data-index="${pending.index}"]`,
    )
    if (el) {
      pendingFocus.current = null
      el.focus({ preventScroll: true })
    }
  })
  return useCallback((index: number) => {
    pendingFocus.current = { index, at: performance.now() }
  }, [])
}

function useScrollToSelection(
  selectedSeq: number | null,
  selectedIndex: number,
  virtualizer: TimelineVirtualizer,
): void {
  // A selection made elsewhere (the parent, a search) scrolls its step into view.
  const shownSeq = useRef<number | null>(selectedSeq)
  useEffect(() => {
    if (shownSeq.current === selectedSeq) return
    shownSeq.current = selectedSeq
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' })
  }, [selectedSeq, selectedIndex, virtualizer])
}

/**
 * The session timeline: every step in a virtual list, so a 10,000-step session renders
 * only the rows on screen. Live sessions follow the newest step while the user stays at
 * the bottom; scrolling up stops that until they come back or press "Jump to latest".
 */
export function Timeline({
  steps: allSteps,
  selectedSeq,
  onSelect,
  follow,
}: TimelineProps): React.JSX.Element {
  // A range brushed on the overview narrows the rows to it; a checkpoint sits in its call's row.
  const brushed = useBrushedSteps(allSteps)
  const steps = useMemo(() => foldCheckpoints(brushed), [brushed])
  const scrollRef = useRef<HTMLDivElement>(null)
  const count = steps.length

  const selectedIndex = useMemo(
    () => (selectedSeq === null ? -1 : indexOfSeq(steps, selectedSeq)),
    [steps, selectedSeq],
  )
  const activeIndex = selectedIndex >= 0 ? selectedIndex : 0

  const { virtualizer, atBottom } = useTimelineVirtualizer(steps, scrollRef, follow)

  useOpenAtEnd(count, follow, virtualizer)

  const expectFocus = useFocusWhenRendered(scrollRef)

  useScrollToSelection(selectedSeq, selectedIndex, virtualizer)

  const moveTo = useCallback(
    (index: number) => {
      if (count === 0) return
      const i = Math.max(0, Math.min(count - 1, index))
      expectFocus(i)
      virtualizer.scrollToIndex(i, { align: 'auto' })
      onSelect(steps[i].seq)
    },
    [count, steps, onSelect, virtualizer, expectFocus],
  )

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>): void => {
    if (e.altKey || e.ctrlKey || e.metaKey) return
    const current = rowIndexOf(e.target) ?? activeIndex
    const target = keyTarget(e.key, current, count)
    if (target === null) return
    if (target === 'select') {
      if (count > 0) onSelect(steps[Math.min(current, count - 1)].seq)
    } else moveTo(target)
    e.preventDefault()
  }

  const onClick = (e: React.MouseEvent<HTMLDivElement>): void => {
    const index = rowIndexOf(e.target)
    if (index !== null && steps[index]) onSelect(steps[index].seq)
  }

  // Tab into the list when the tabbable row is scrolled away: bring it back and focus it.
  const onFocus = (e: React.FocusEvent<HTMLDivElement>): void => {
    if (e.target !== e.currentTarget || count === 0) return
    expectFocus(activeIndex)
    virtualizer.scrollToIndex(activeIndex, { align: 'auto' })
  }

  const jumpToLatest = (): void => {
    if (count === 0) return
    expectFocus(count - 1)
    virtualizer.scrollToEnd()
  }

  const activeRendered = virtualizer.getVirtualItems().some((item) => item.index === activeIndex)

  return (
    <div className="tl">
      <Overview />
      <div
        ref={scrollRef}
        className="tl-scroll"
        role="list"
        aria-label="Session timeline"
        tabIndex={activeRendered || count === 0 ? -1 : 0}
        onKeyDown={onKeyDown}
        onClick={onClick}
        onFocus={onFocus}
      >
        <TimelineRows
          virtualizer={virtualizer}
          steps={steps}
          selectedIndex={selectedIndex}
          activeIndex={activeIndex}
        />
      </div>
      {count === 0 && <NoSteps brushed={allSteps.length > 0} />}
      {!atBottom && count > 0 && <JumpToLatest onJump={jumpToLatest} />}
    </div>
  )
}

interface TimelineRowsProps {
  virtualizer: TimelineVirtualizer
  steps: readonly TimelineStep[]
  selectedIndex: number
  /** The row Tab lands on: the selected one, else the first. */
  activeIndex: number
}

/** The rows on screen, in a sizer as tall as all of them. */
function TimelineRows({
  virtualizer,
  steps,
  selectedIndex,
  activeIndex,
}: TimelineRowsProps): React.JSX.Element {
  const items = virtualizer.getVirtualItems()
  const offset = items.length > 0 ? items[0].start : 0
  return (
    <div role="presentation" className="tl-sizer" style={{ height: virtualizer.getTotalSize() }}>
      <div role="presentation" className="tl-window" style={{ transform: `translateY(${offset}px)` }}>
        {items.map((item) => (
          <TimelineRow
            key={item.key}
            step={steps[item.index]}
            index={item.index}
            selected={item.index === selectedIndex}
            tabbable={item.index === activeIndex}
            measure={virtualizer.measureElement}
          />
        ))}
      </div>
    </div>
  )
}

function NoSteps({ brushed }: { brushed: boolean }): React.JSX.Element {
  return (
    <p className="tl-empty">{brushed ? 'No steps in the range brushed on the overview.' : 'No steps yet.'}</p>
  )
}

/** Shown once the reader scrolled up from the newest step. */
function JumpToLatest({ onJump }: { onJump(): void }): React.JSX.Element {
  return (
    <button type="button" className="tl-jump" onClick={onJump}>
      Jump to latest <span aria-hidden="true">↓</span>
    </button>
  )
}
