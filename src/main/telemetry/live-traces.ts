import type { StepwiseEvent } from '../../shared/protocol'

/* What live traces offer the hosts (live.ts sets them up; live-export.ts sends them). */

export interface LiveTraces {
  /** One emitted event of any session. */
  observe(event: StepwiseEvent): void
  /**
   * A session continued (a chat's next message, perhaps after a restart): its stored
   * events the mapping has not seen (all of them in a new process; those the host
   * emitted outside a run, such as an undo, in this one) bring its state up to date,
   * so turn numbers and ids carry on; nothing already ended is sent again.
   */
  resume(sessionId: string, stored: StepwiseEvent[]): void
  /** Sends what has ended; resolves false if that took longer than `timeoutMs`. */
  flush(timeoutMs: number): Promise<boolean>
  /** Ends every session span still open, sends them, stops; false if it ran out of time. */
  shutdown(timeoutMs: number): Promise<boolean>
}

/** Resolves `promise`'s answer, or false when it takes longer than `timeoutMs` or fails. */
export function within(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    timer.unref()
    promise.then(
      (answer) => {
        clearTimeout(timer)
        resolve(answer !== false)
      },
      () => {
        clearTimeout(timer)
        resolve(false)
      },
    )
  })
}
