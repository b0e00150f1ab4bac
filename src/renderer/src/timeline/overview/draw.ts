import { fromAxis, tickLabel, tickStep } from './axis'
import { formatDuration } from '../format'
import {
  GUTTER,
  pxOfAxis,
  pxOfTime,
  spanPx,
  visibleMarks,
  visibleSpans,
  type Row,
  type Scale,
} from './layout'
import { spanCost, type PriceOf } from './labels'
import type { Palette } from './palette'
import { isSpan, type Mark, type Span, type SpanModel } from './spans'

/**
 * Paints the overview on its canvas: ruler, folded gaps, span lanes, marks, the tokens
 * chart, the files strip, then selection, brush and the replay playhead on top. Only what
 * is in the window is drawn, and bars thinner than a pixel that fall on the same pixel
 * are drawn once, so a zoomed-out 10,000-step session costs about a bar per pixel column.
 */

export interface Frame {
  ctx: CanvasRenderingContext2D
  width: number
  height: number
  model: SpanModel
  scale: Scale
  rows: readonly Row[]
  now: number
  palette: Palette
  selectedSeq: number | null
  hoverSeq: number | null
  /** A range brushed (or being brushed), real time. */
  brush: { from: number; to: number } | null
  /** Replay: the time it stands at; later bars are dimmed. */
  playhead: number | null
  priceOf?: PriceOf
}

const MARK_GLYPHS: Record<Mark['kind'], string> = {
  checkpoint: '⚑',
  restore: '↺',
  fork: '⎇',
  error: '!',
  finding: '◆',
  verify: '✓',
  unparsed: '⚠',
  finish: '■',
}

export function drawOverview(f: Frame): void {
  const { ctx, width, height, palette: p } = f
  ctx.clearRect(0, 0, width, height)
  ctx.fillStyle = p.bg
  ctx.fillRect(0, 0, width, height)
  ctx.font = '10px system-ui, sans-serif'
  ctx.textBaseline = 'middle'
  const t0 = fromAxis(f.scale.axis, f.scale.x0)
  const t1 = fromAxis(f.scale.axis, f.scale.x1)

  ctx.save()
  ctx.beginPath()
  ctx.rect(GUTTER, 0, width - GUTTER, height)
  ctx.clip()
  drawRuler(f)
  drawGaps(f, t0, t1)
  for (const row of f.rows) if (row.lane !== undefined) drawLane(f, row, t0, t1)
  const marksRow = f.rows.find((r) => r.id === 'marks')
  if (marksRow) drawMarks(f, marksRow, t0, t1)
  const tokensRow = f.rows.find((r) => r.id === 'tokens')
  const filesRow = f.rows.find((r) => r.id === 'files')
  const models = f.rows.find((r) => r.id === 'model')
  if (tokensRow && models?.lane !== undefined) drawTokens(f, { row: tokensRow, lane: models.lane }, t0, t1)
  if (filesRow) drawFiles(f, filesRow, t0, t1)
  drawOverlays(f)
  ctx.restore()

  // The gutter: lane names over the background, so bars scrolled left slide under them.
  ctx.fillStyle = p.muted
  ctx.textAlign = 'left'
  for (const row of f.rows) if (row.label) ctx.fillText(row.label, 6, row.y + row.h / 2)
  ctx.fillStyle = p.grid
  ctx.fillRect(GUTTER - 1, 0, 1, height)
}

function drawRuler(f: Frame): void {
  const { ctx, scale, palette: p, height } = f
  const perPx = (scale.x1 - scale.x0) / scale.plotW
  const step = tickStep(perPx, 70)
  ctx.textAlign = 'left'
  for (let x = Math.max(0, Math.ceil(scale.x0 / step)) * step; x <= scale.x1; x += step) {
    const px = Math.round(pxOfAxis(scale, x)) + 0.5
    ctx.fillStyle = p.grid
    ctx.fillRect(px, 12, 1, height - 12)
    const text = tickLabel(x, step)
    // A label that would be cut by the right edge is left out; its tick line stays.
    if (px + 3 + ctx.measureText(text).width > f.width) continue
    ctx.fillStyle = p.muted
    ctx.fillText(text, px + 3, 7)
  }
}

function drawGaps(f: Frame, t0: number, t1: number): void {
  const { ctx, scale, palette: p, height } = f
  for (const gap of scale.axis.gaps) {
    if (gap.to < t0 || gap.from > t1) continue
    const a = pxOfTime(scale, gap.from)
    const b = pxOfTime(scale, gap.to)
    ctx.fillStyle = p.gap
    ctx.fillRect(a, 14, b - a, height - 14)
    ctx.fillStyle = p.muted
    ctx.textAlign = 'center'
    // In the band, under the axis (the axis's own labels sit at the top).
    if (b - a > 50)
      ctx.fillText(`idle ${formatDuration(gap.to - gap.from)}`, (a + b) / 2, 14 + (height - 14) / 2)
    ctx.textAlign = 'left'
  }
}

function fillOf(p: Palette, s: Span): string {
  if (s.status === 'error') return p.error
  if (s.status === 'rejected') return p.rejected
  return p[s.kind === 'turn' ? 'turn' : s.kind]
}

function drawLane(f: Frame, row: Row, t0: number, t1: number): void {
  const { ctx, palette: p, now } = f
  const spans = visibleSpans(f.model, row.lane!, t0, t1)
  let lastPx = -Infinity
  let lastFill = ''
  for (const s of spans) {
    const [a, raw] = spanPx(f.scale, s, now, 0)
    const fill = fillOf(p, s)
    // Thin bars falling on the bar just drawn, in its colour: that bar shows them all. So a
    // zoomed-out session costs about one bar per two pixels, however many steps it has.
    if (raw - a < 1.5 && a < lastPx && fill === lastFill) continue
    const b = Math.max(raw, a + (s.kind === 'turn' ? 1 : 2))
    lastPx = b
    lastFill = fill
    const w = b - a
    ctx.fillStyle = fill
    ctx.globalAlpha = s.kind === 'turn' && s.status === 'ok' ? 0.55 : 1
    const bar: Box = { x: a, y: row.y, w, h: row.h }
    if (s.kind === 'model' && w > 6) {
      ctx.beginPath()
      ctx.roundRect(a, row.y, w, row.h, 4)
      ctx.fill()
    } else ctx.fillRect(a, row.y, w, row.h)
    ctx.globalAlpha = 1
    if (s.kind === 'turn') {
      ctx.fillStyle = p.turnEdge
      ctx.fillRect(a, row.y, Math.min(2, w), row.h)
    }
    if (s.status === 'running') stripes(ctx, bar, { color: p.bg, clock: f.now })
    for (const wait of s.waits ?? []) {
      const wa = pxOfTime(f.scale, wait.start)
      const wb = Math.max(pxOfTime(f.scale, wait.end ?? now), wa + 2)
      // A wait the user answered with a rejection keeps the rejected colour, hatched as a wait.
      ctx.fillStyle = wait.decision === 'reject' ? p.rejected : p.wait
      ctx.fillRect(wa, row.y, wb - wa, row.h)
      const waited: Box = { x: wa, y: row.y, w: wb - wa, h: row.h }
      stripes(ctx, waited, { color: p.bg, clock: wait.end === null ? f.now : 0, alpha: 0.18 })
    }
    if (s.status === 'rejected') {
      ctx.fillStyle = p.text
      ctx.fillRect(a, row.y + row.h / 2 - 0.5, w, 1.5)
    }
    // Names inside bars wide enough: on the dark fills in the card's colour, on the pale ones in the text's.
    // A bar mostly spent waiting carries the wait's colour under its name: the text's colour reads on it.
    const onWait = (s.waits?.length ?? 0) > 0
    if (w > 48)
      label(ctx, s.name, bar, s.kind === 'turn' || s.status === 'rejected' || onWait ? p.text : p.bg)
  }
}

/** A rectangle on the canvas, in pixels. */
interface Box {
  x: number
  y: number
  w: number
  h: number
}

/** A bar's name, clipped to the bar. */
function label(ctx: CanvasRenderingContext2D, text: string, bar: Box, color: string): void {
  ctx.save()
  ctx.beginPath()
  ctx.rect(bar.x + 3, bar.y, bar.w - 6, bar.h)
  ctx.clip()
  ctx.fillStyle = color
  ctx.textAlign = 'left'
  ctx.fillText(text, bar.x + 4, bar.y + bar.h / 2 + 0.5)
  ctx.restore()
}

interface StripeStyle {
  color: string
  /** The clock the stripes move with; 0 keeps them still. */
  clock: number
  alpha?: number
}

/** Diagonal stripes over a bar: running (they move with the clock) or waiting. */
function stripes(
  ctx: CanvasRenderingContext2D,
  { x, y, w, h }: Box,
  { color, clock, alpha = 0.35 }: StripeStyle,
): void {
  if (w < 3) return
  ctx.save()
  ctx.beginPath()
  ctx.rect(x, y, w, h)
  ctx.clip()
  ctx.strokeStyle = color
  ctx.globalAlpha = alpha
  ctx.lineWidth = 2
  const shift = clock ? (clock / 60) % 8 : 0
  ctx.beginPath()
  for (let i = x - h - 8 + shift; i < x + w; i += 8) {
    ctx.moveTo(i, y + h)
    ctx.lineTo(i + h, y)
  }
  ctx.stroke()
  ctx.restore()
}

function markColor(p: Palette, m: Mark): string {
  if (m.bad) return p.error
  if (m.kind === 'checkpoint') return p.checkpoint
  if (m.kind === 'restore') return p.restore
  if (m.kind === 'fork') return p.fork
  return p.muted
}

function drawMarks(f: Frame, row: Row, t0: number, t1: number): void {
  const { ctx, palette: p } = f
  ctx.textAlign = 'center'
  ctx.font = '11px system-ui, sans-serif'
  let lastPx = -Infinity
  for (const m of visibleMarks(f.model, t0, t1)) {
    const x = pxOfTime(f.scale, m.ts)
    if (x - lastPx < 4) continue
    lastPx = x
    ctx.fillStyle = markColor(p, m)
    ctx.fillRect(Math.round(x), row.y + row.h - 3, 1, 3)
    ctx.fillText(m.kind === 'verify' && m.bad ? '✗' : MARK_GLYPHS[m.kind], x, row.y + row.h / 2 - 1)
  }
  ctx.font = '10px system-ui, sans-serif'
  ctx.textAlign = 'left'
}

/** The tokens row, and the model calls' lane whose tokens it draws. */
interface TokensRow {
  row: Row
  lane: number
}

function drawTokens(f: Frame, { row, lane }: TokensRow, t0: number, t1: number): void {
  const { ctx, palette: p, model } = f
  if (model.maxTokens === 0) return
  const spans = visibleSpans(model, lane, t0, t1).filter((s) => s.inputTokens !== undefined)
  const costs = f.priceOf ? spans.map((s) => spanCost(s, f.priceOf)) : []
  const maxCost = costs.reduce<number>((m, c) => Math.max(m, c ?? 0), 0)
  ctx.fillStyle = p.grid
  ctx.fillRect(GUTTER, row.y + row.h, f.width - GUTTER, 1)
  // Calls closer than two pixels share one bar, as tall as the largest of them.
  let bucket: { a: number; b: number; inT: number; outT: number; cost: number } | null = null
  const flush = (): void => {
    if (!bucket) return
    const { a, b, inT, outT, cost } = bucket
    const w = Math.max(1, b - a - 1)
    // At least two pixels each, so a small call still shows it spent tokens.
    const inH = Math.max(2, (inT / model.maxTokens) * (row.h - 2))
    const outH = Math.max(2, (outT / model.maxTokens) * (row.h - 2))
    ctx.fillStyle = p.tokensIn
    ctx.fillRect(a, row.y + row.h - inH, w, inH)
    ctx.fillStyle = p.tokensOut
    ctx.fillRect(a, row.y + row.h - inH - outH, w, outH)
    if (cost > 0 && maxCost > 0) {
      ctx.fillStyle = p.cost
      ctx.fillRect(a + w / 2 - 1.5, row.y + row.h - (cost / maxCost) * (row.h - 2) - 1.5, 3, 3)
    }
  }
  spans.forEach((s, i) => {
    const [a, raw] = spanPx(f.scale, s, f.now, 0)
    const b = Math.max(raw, a + 2)
    const inT = s.inputTokens ?? 0
    const outT = s.outputTokens ?? 0
    const cost = costs[i] ?? 0
    if (bucket && a < bucket.b) {
      bucket.b = Math.max(bucket.b, b)
      bucket.inT = Math.max(bucket.inT, inT)
      bucket.outT = Math.max(bucket.outT, outT)
      bucket.cost = Math.max(bucket.cost, cost)
      return
    }
    flush()
    bucket = { a, b, inT, outT, cost }
  })
  flush()
}

function drawFiles(f: Frame, row: Row, t0: number, t1: number): void {
  const { ctx, palette: p } = f
  for (let lane = 2; lane < f.model.lanes.length; lane++) {
    let lastPx = -Infinity
    let lastFill = ''
    for (const s of visibleSpans(f.model, lane, t0, t1)) {
      if (!s.files?.length) continue
      const [a, raw] = spanPx(f.scale, s, f.now, 0)
      const fill = s.writes ? p.fileWrite : p.fileRead
      if (raw - a < 1.5 && a < lastPx && fill === lastFill) continue
      const b = Math.max(raw, a + 2)
      lastPx = b
      lastFill = fill
      ctx.fillStyle = fill
      ctx.fillRect(a, row.y, b - a, row.h)
    }
  }
}

function outline(f: Frame, seq: number, color: string, width: number): void {
  const item = f.model.find(seq)
  if (!item) return
  const { ctx } = f
  ctx.strokeStyle = color
  ctx.lineWidth = width
  if (isSpan(item)) {
    const row = f.rows.find((r) => r.lane === item.lane)
    if (!row) return
    const [a, b] = spanPx(f.scale, item, f.now)
    ctx.strokeRect(a - 1, row.y - 1, b - a + 2, row.h + 2)
  } else {
    const row = f.rows.find((r) => r.id === 'marks')
    if (!row) return
    const x = pxOfTime(f.scale, item.ts)
    ctx.strokeRect(x - 6, row.y - 1, 12, row.h + 2)
  }
}

function drawOverlays(f: Frame): void {
  const { ctx, palette: p, height } = f
  if (f.playhead !== null) {
    const x = pxOfTime(f.scale, f.playhead)
    ctx.fillStyle = p.bg
    ctx.globalAlpha = 0.6
    ctx.fillRect(x, 14, f.width - x, height - 14)
    ctx.globalAlpha = 1
  }
  if (f.brush) {
    const a = pxOfTime(f.scale, f.brush.from)
    const b = pxOfTime(f.scale, f.brush.to)
    ctx.fillStyle = p.accent
    ctx.globalAlpha = 0.12
    ctx.fillRect(a, 0, b - a, height)
    ctx.globalAlpha = 1
    ctx.fillRect(a, 0, 1, height)
    ctx.fillRect(b, 0, 1, height)
  }
  if (f.hoverSeq !== null && f.hoverSeq !== f.selectedSeq) outline(f, f.hoverSeq, p.muted, 1)
  if (f.selectedSeq !== null) outline(f, f.selectedSeq, p.accent, 2)
  if (f.playhead !== null) {
    const x = Math.round(pxOfTime(f.scale, f.playhead))
    ctx.fillStyle = p.accent
    ctx.fillRect(x - 1, 0, 2, height)
    ctx.beginPath()
    ctx.moveTo(x - 5, 0)
    ctx.lineTo(x + 5, 0)
    ctx.lineTo(x, 7)
    ctx.fill()
  }
}
