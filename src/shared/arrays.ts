/*
 * Array helpers that never spread into a call. `a.push(...b)`, `Math.max(...b)` and the like put every
 * element of `b` on the call stack as an argument; past roughly a hundred thousand elements V8 throws
 * "Maximum call stack size exceeded" (deleting a 50 MB file once did, through its million lines).
 * The lint rule in eslint.config.js forbids those spreads everywhere; these are the replacements.
 */

/** Appends every item to `target`, in order, and returns `target`. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item)
  return target
}

/** The largest of `items` and `floor` (as `Math.max(floor, ...items)`; -Infinity when both are absent). */
export function maxOf(items: Iterable<number>, floor = -Infinity): number {
  let best = floor
  for (const n of items) best = Math.max(best, n)
  return best
}

/** The smallest of `items` and `ceiling` (as `Math.min(ceiling, ...items)`; Infinity when both are absent). */
export function minOf(items: Iterable<number>, ceiling = Infinity): number {
  let best = ceiling
  for (const n of items) best = Math.min(best, n)
  return best
}
