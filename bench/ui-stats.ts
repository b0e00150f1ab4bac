import type { Unit } from './util'

/** A plain count (elements, dropped events). */
export const COUNT: Unit = 'count'

/** Nearest-rank percentile (p in 0–100) of a non-empty list. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) throw new Error('percentile of nothing')
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}
