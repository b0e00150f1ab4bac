import type { StepwiseEvent } from '../../../shared/protocol'
import { emptySessionView, reduceEvent, type SessionView } from '../../../shared/reducer'

/**
 * The session as it looked after its first `count` events, through the same
 * reducer the live view uses. Views are kept every CHECKPOINT events, so a jump
 * anywhere in a 10,000-step session reduces at most that many.
 */
const CHECKPOINT = 250

export class Scrubber {
  private readonly saved: SessionView[] = [emptySessionView]

  constructor(private readonly events: readonly StepwiseEvent[]) {}

  get length(): number {
    return this.events.length
  }

  viewAt(count: number): SessionView {
    const n = Math.max(0, Math.min(count, this.events.length))
    const slot = Math.min(Math.floor(n / CHECKPOINT), this.saved.length - 1)
    let view = this.saved[slot]
    for (let i = slot * CHECKPOINT; i < n; i++) {
      view = reduceEvent(view, this.events[i])
      if ((i + 1) % CHECKPOINT === 0 && this.saved.length === (i + 1) / CHECKPOINT) this.saved.push(view)
    }
    return view
  }

  /** The seq of the event at position `count - 1` (the step the view is "at"). */
  seqAt(count: number): number | null {
    return count > 0 ? (this.events[Math.min(count, this.events.length) - 1]?.seq ?? null) : null
  }

  /** How long to wait before showing event `index` when playing at `speed`: real gaps, capped. */
  delayBefore(index: number, speed: number): number {
    const prev = this.events[index - 1]
    const next = this.events[index]
    if (!prev || !next) return 0
    return Math.min(1000, Math.max(16, next.ts - prev.ts)) / speed
  }
}
