import type { TimelineStep } from '../../../shared/reducer'

/**
 * Where the step with `seq` is in `steps`, or -1. The reducer appends steps in event
 * order, so a list (filtered or not) is sorted by seq and a binary search finds it;
 * the linear scan only runs when it is not there, e.g. filtered out.
 */
export function indexOfSeq(steps: readonly TimelineStep[], seq: number): number {
  let lo = 0
  let hi = steps.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const at = steps[mid].seq
    if (at === seq) return mid
    if (at < seq) lo = mid + 1
    else hi = mid - 1
  }
  return steps.findIndex((s) => s.seq === seq)
}
