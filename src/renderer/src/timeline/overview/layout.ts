import { fromAxis, toAxis, type Axis } from './axis'
import { FIRST_TOOL_LANE, MODEL_LANE, TURN_LANE, type Mark, type Span, type SpanModel } from './spans'

/**
 * The overview's geometry, in CSS pixels: a ruler, the span lanes (turns, model calls,
 * tools), a row of marks, the tokens chart and the files strip, with a gutter of lane
 * names on the left. Pure, so hit tests and culling are tested without a canvas.
 */

export const GUTTER = 58
export const RULER_H = 18
const ROW_GAP = 3

export type RowId = 'turns' | 'model' | 'tools' | 'marks' | 'tokens' | 'files'

export interface Row {
  id: RowId
  label: string
  y: number
  h: number
  /** For span rows: the model lane drawn here. */
  lane?: number
}

const HEIGHTS: Record<RowId, number> = { turns: 12, model: 14, tools: 14, marks: 14, tokens: 24, files: 8 }

export function rowsOf(model: SpanModel): { rows: Row[]; height: number } {
  const rows: Row[] = []
  let y = RULER_H + 4
  const add = (id: RowId, label: string, lane?: number): void => {
    rows.push({ id, label, y, h: HEIGHTS[id], ...(lane === undefined ? {} : { lane }) })
    y += HEIGHTS[id] + ROW_GAP
  }
  add('turns', 'turns', TURN_LANE)
  add('model', 'model', MODEL_LANE)
  const toolLanes = Math.max(1, model.lanes.length - FIRST_TOOL_LANE)
  for (let i = 0; i < toolLanes; i++) add('tools', i === 0 ? 'tools' : '', FIRST_TOOL_LANE + i)
  add('marks', 'marks')
  add('tokens', 'tokens')
  add('files', 'files')
  return { rows, height: y + 2 }
}

/** Maps axis units to pixels and back for a window [x0, x1] drawn over `plotW` pixels. */
export interface Scale {
  axis: Axis
  x0: number
  x1: number
  plotW: number
}

export function pxOfAxis(scale: Scale, x: number): number {
  return GUTTER + ((x - scale.x0) / (scale.x1 - scale.x0)) * scale.plotW
}

export function pxOfTime(scale: Scale, t: number): number {
  return pxOfAxis(scale, toAxis(scale.axis, t))
}

export function timeOfPx(scale: Scale, px: number): number {
  return fromAxis(scale.axis, scale.x0 + ((px - GUTTER) / scale.plotW) * (scale.x1 - scale.x0))
}

/** A span's pixel extent: at least `min` wide, so a 1 ms call is still a bar. */
export function spanPx(scale: Scale, span: Span, now: number, min = 2): [number, number] {
  const a = pxOfTime(scale, span.start)
  const b = pxOfTime(scale, span.end ?? now)
  return [a, Math.max(b, a + min)]
}

/** First index in `lane` (sorted by start) whose start is at or after `t`. */
function firstFrom(lane: readonly Span[], t: number): number {
  let lo = 0
  let hi = lane.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (lane[mid].start < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The spans of one lane that may show between real times t0 and t1: those starting up to
 * the lane's longest span before t0, plus the lane's running tail (open spans are last).
 */
export function visibleSpans(model: SpanModel, lane: number, t0: number, t1: number): Span[] {
  const spans = model.lanes[lane] ?? []
  const out: Span[] = []
  const from = firstFrom(spans, t0 - (model.laneMaxMs[lane] ?? 0))
  for (let i = from; i < spans.length && spans[i].start <= t1; i++) {
    const s = spans[i]
    if (s.end === null || s.end >= t0) out.push(s)
  }
  for (let i = Math.min(from, spans.length) - 1; i >= 0 && i >= from - 4; i--)
    if (spans[i].end === null) out.unshift(spans[i])
  return out
}

/** Marks between t0 and t1 (marks are sorted by time). */
export function visibleMarks(model: SpanModel, t0: number, t1: number): Mark[] {
  const marks = model.marks
  let lo = 0
  let hi = marks.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (marks[mid].ts < t0) lo = mid + 1
    else hi = mid
  }
  const out: Mark[] = []
  for (let i = lo; i < marks.length && marks[i].ts <= t1; i++)
    if (marks[i].kind !== 'finish') out.push(marks[i])
  return out
}

export type Hit = { span: Span; mark?: undefined } | { mark: Mark; span?: undefined }

/** What the pointer is over: the drawn model, its scale and rows, at the clock's `now`. */
export interface HitChart {
  model: SpanModel
  scale: Scale
  rows: readonly Row[]
  now: number
}

/** The bar or mark under (px, py), within a few pixels; the nearest one wins. */
export function hitTest(chart: HitChart, px: number, py: number): Hit | null {
  const { model, scale, rows, now } = chart
  if (px < GUTTER) return null
  const row = rows.find((r) => py >= r.y - 1 && py <= r.y + r.h + 1)
  if (!row) return null
  const slack = 4
  const t0 = timeOfPx(scale, px - slack)
  const t1 = timeOfPx(scale, px + slack)
  if (row.id === 'marks') {
    let best: Mark | null = null
    let bestD = Infinity
    for (const m of visibleMarks(model, t0, t1)) {
      const d = Math.abs(pxOfTime(scale, m.ts) - px)
      if (d < bestD) [best, bestD] = [m, d]
    }
    return best ? { mark: best } : null
  }
  if (row.lane === undefined) return null
  let best: Span | null = null
  let bestD = Infinity
  for (const s of visibleSpans(model, row.lane, t0, t1)) {
    const [a, b] = spanPx(scale, s, now)
    const d = px < a ? a - px : px > b ? px - b : 0
    // Inside two nested candidates, the shorter (later-starting) one is the one under the pointer.
    if (d <= slack && d <= bestD) [best, bestD] = [s, d]
  }
  return best ? { span: best } : null
}

/** Which of `count` bars the accessible list renders: `size` of them around `focus`. */
export function barWindow(count: number, focus: number, size: number): [number, number] {
  if (count <= size) return [0, count]
  const f = Math.max(0, Math.min(count - 1, focus))
  const from = Math.max(0, Math.min(count - size, f - (size >> 1)))
  return [from, from + size]
}

/** The seqs of the steps that happened in [from, to] (real time): spans overlapping it, marks in it. */
export function seqsInRange(model: SpanModel, from: number, to: number): Set<number> {
  const seqs = new Set<number>()
  for (const s of model.spans) {
    if (s.start <= to && (s.end === null || s.end >= from)) seqs.add(s.seq)
  }
  for (const m of model.marks) if (m.ts >= from && m.ts <= to) seqs.add(m.seq)
  return seqs
}

/** The index in `items` (sorted by seq) of the bar for `seq`, or of the nearest one before it. */
export function itemIndexAt(items: ReadonlyArray<{ seq: number }>, seq: number): number {
  let lo = 0
  let hi = items.length - 1
  let found = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (items[mid].seq <= seq) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

/** How many events of the session are at or before real time `t` (replay's position for a time). */
export function eventCountAt(model: SpanModel, t: number): number {
  const ts = model.eventTs
  let lo = 0
  let hi = ts.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (ts[mid] <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** How many events up to and including `seq` (replay's position for a step). */
export function eventCountOfSeq(model: SpanModel, seq: number): number {
  const seqs = model.eventSeqs
  let lo = 0
  let hi = seqs.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (seqs[mid] <= seq) lo = mid + 1
    else hi = mid
  }
  return lo
}
