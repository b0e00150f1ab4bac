import { formatDuration, formatTokens } from '../format'
import { isSpan, type Mark, type Span, type SpanStatus } from './spans'

/** What a bar says: in its tooltip (lines) and as its accessible name (one sentence). */

export type PriceOf = (
  provider: string,
  model: string,
) => { inputPerMTok: number; outputPerMTok: number } | null

const KIND_NAMES: Record<Span['kind'], string> = {
  turn: 'Turn',
  model: 'Model call',
  tool: 'Tool call',
  command: 'Command',
  compaction: 'Compaction',
}

const STATUS_NAMES: Record<SpanStatus, string> = {
  ok: 'done',
  error: 'failed',
  rejected: 'rejected',
  running: 'running',
  waiting: 'waiting for approval',
}

/** The span's cost in USD at list prices, or null when its model has no known price. */
export function spanCost(span: Span, priceOf?: PriceOf): number | null {
  if (!priceOf || !span.provider || !span.model || span.inputTokens === undefined) return null
  const price = priceOf(span.provider, span.model)
  if (!price) return null
  return ((span.inputTokens ?? 0) * price.inputPerMTok + (span.outputTokens ?? 0) * price.outputPerMTok) / 1e6
}

export function formatUsd(usd: number): string {
  return usd > 0 && usd < 0.001 ? '<$0.001' : `$${usd.toFixed(usd < 1 ? 3 : 2)}`
}

function waitedMs(span: Span, now: number): number {
  return (span.waits ?? []).reduce((sum, w) => sum + ((w.end ?? now) - w.start), 0)
}

export interface BarText {
  title: string
  lines: string[]
}

export function barText(item: Span | Mark, now: number, priceOf?: PriceOf): BarText {
  // A mark's kind alone: its step number is the replay bar's and the details pane's to give.
  if (!isSpan(item)) return { title: item.label, lines: [item.kind] }
  const lines: string[] = []
  const took = (item.end ?? now) - item.start
  lines.push(
    `${KIND_NAMES[item.kind]} · ${STATUS_NAMES[item.status]} · ${formatDuration(took)}${item.end === null ? ' so far' : ''}`,
  )
  if (item.waits?.length) {
    const last = item.waits[item.waits.length - 1]
    const answered = last.end === null ? 'still waiting' : (last.decision ?? 'answered')
    lines.push(`waited ${formatDuration(waitedMs(item, now))} for approval (${answered})`)
  }
  if (item.inputTokens !== undefined)
    lines.push(`${formatTokens(item.inputTokens)} tokens in · ${formatTokens(item.outputTokens ?? 0)} out`)
  const cost = spanCost(item, priceOf)
  if (cost !== null) lines.push(`${formatUsd(cost)} at list prices`)
  if (item.retries) lines.push(`${item.retries} ${item.retries === 1 ? 'retry' : 'retries'}`)
  if (item.files?.length) {
    const shown = item.files.slice(0, 4).join(', ')
    const more = item.files.length > 4 ? ` and ${item.files.length - 4} more` : ''
    lines.push(`${item.writes ? 'changed' : 'read'}: ${shown}${more}`)
  }
  return { title: item.name, lines }
}

/** One sentence for screen readers: kind, name, status, duration, tokens. */
export function barName(item: Span | Mark, now: number, priceOf?: PriceOf): string {
  const { title, lines } = barText(item, now, priceOf)
  return `${title}. ${lines.join('. ')}`
}
