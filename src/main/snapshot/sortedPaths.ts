/** Helpers over sorted lists of root-relative paths (sorted by UTF-16 code units, as `<` compares). */

/** Orders entries by path, as `<` compares (for `Array.prototype.sort`). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0
}

/** Paths in one of two sorted lists but not the other. */
export function namesChanged(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = []
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++])
    else if (i >= a.length || b[j] < a[i]) out.push(b[j++])
    else {
      i++
      j++
    }
  }
  return out
}

/** Binary search in a sorted list. */
export function isListed(sorted: readonly string[], p: string): boolean {
  let lo = 0
  let hi = sorted.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid] === p) return true
    if (sorted[mid] < p) lo = mid + 1
    else hi = mid - 1
  }
  return false
}
