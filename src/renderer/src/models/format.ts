import { sameModelName } from '../../../shared/model-ref'
import { providerLabel as labelOf } from '../../../shared/providers'

/** Pure helpers for the model picker: labels, sizes and pull progress. */

export function providerLabel(provider: string | null | undefined): string {
  if (!provider) return ''
  return labelOf(provider)
}

/** "Provider · model", as the picker's button and the status bar show the current choice. */
export function choiceLabel(provider: string | null | undefined, model: string | null | undefined): string {
  if (!provider && !model) return 'No model'
  return [providerLabel(provider), model].filter(Boolean).join(' · ')
}

/** A download size in GB, as Ollama itself counts them (10^9 bytes): "4.7 GB", "0.4 GB". */
export function formatGigabytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return ''
  const gb = bytes / 1e9
  if (gb >= 100) return `${Math.round(gb)} GB`
  if (gb >= 0.05) return `${gb.toFixed(1)} GB`
  return `${Math.max(1, Math.round(bytes / 1e6))} MB`
}

export interface PullState {
  status: string
  completed?: number
  total?: number
  done: boolean
  error?: string
}

/** Whole percent of a pull's current layer, or null while Ollama has not said how big it is. */
export function pullPercent(p: PullState): number | null {
  if (p.done && !p.error) return 100
  if (!p.total || p.total <= 0 || p.completed === undefined) return null
  return Math.max(0, Math.min(100, Math.floor((p.completed / p.total) * 100)))
}

/** What a pull is doing, for the line under its bar: "pulling 8eeb52dfb3bb · 1.2 / 4.7 GB". */
export function pullText(p: PullState): string {
  if (p.error) return `Failed: ${p.error}`
  if (p.done) return 'Pulled'
  const status = p.status.replace(/^pulling ([0-9a-f]{12})[0-9a-f]*$/, 'pulling $1')
  if (p.total && p.completed !== undefined) {
    return `${status} · ${formatGigabytes(p.completed)} / ${formatGigabytes(p.total)}`
  }
  return status
}

/** Whether a pull is still under way (a finished or failed one is not). */
export function isPulling(p: PullState | undefined): boolean {
  return p !== undefined && !p.done
}

/** Ollama names a model `name:tag`; `name` alone means `name:latest`. */
export const sameModel = sameModelName

/** Splits "Run `ollama serve`" into text and code parts (odd parts were between backticks). */
export function splitBackticks(text: string): { code: boolean; text: string }[] {
  const parts = text.split('`')
  // An unmatched backtick is just a character: keep the tail as text.
  if (parts.length % 2 === 0)
    parts.splice(parts.length - 2, 2, `${parts[parts.length - 2]}\`${parts[parts.length - 1]}`)
  return parts.map((part, i) => ({ code: i % 2 === 1, text: part })).filter((p) => p.text !== '')
}

/** A price per million tokens: $2.50, $0.15, $0.075 (no rounding a small price away). */
export function formatPrice(usd: number): string {
  return `$${usd < 0.1 ? usd.toFixed(3).replace(/0$/, '') : usd.toFixed(2)}`
}
