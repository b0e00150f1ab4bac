/*
 * Foreground work: what the user waits on now — the tool calls of an agent's step. Background work of
 * the same process (the code index watcher's first walk of the tree, a build's parse batches and
 * main-thread slices) asks `foreground.wait()` between its units and yields while a step runs. On 2
 * cores the watcher's walk alone made a session's first whole-tree search take ~0.80 s instead of
 * ~0.54 s (medians, a big tree's later sessions; docs/benchmarks.md).
 *
 * One owner for the whole process, not one per session: the cores and libuv's I/O threads are the
 * process's, so one session's step is slowed as much by another session's walk as by its own.
 *
 * Yielding is bounded: a busy stretch holds background work back for at most `maxMs`. A command
 * that runs for minutes (a test suite, a build) must not keep the index's watches from being set
 * up, or the files it writes in folders not yet watched would go unseen by the index.
 */

/** Longest a busy stretch holds background work back. */
export const FOREGROUND_MAX_MS = 1_000

export class Foreground {
  private holds = 0
  /** When the current busy stretch began (holds went from 0 to 1); meaningful while holds > 0. */
  private busySince = 0
  private waiters: Array<() => void> = []
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly maxMs = FOREGROUND_MAX_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Marks foreground work under way until the returned function is called (once is enough; more are ignored). */
  hold(): () => void {
    if (this.holds++ === 0) this.busySince = this.now()
    let released = false
    return () => {
      if (released) return
      released = true
      if (--this.holds === 0) this.wake()
    }
  }

  /** True while foreground work is under way and background work should yield to it. */
  busy(): boolean {
    return this.holds > 0 && this.now() - this.busySince < this.maxMs
  }

  /**
   * Undefined when background work may go on now (no promise to await on the common path); else a
   * promise that resolves when the busy stretch ends or has lasted `maxMs`.
   */
  wait(): Promise<void> | undefined {
    if (!this.busy()) return undefined
    if (!this.timer) {
      const left = this.busySince + this.maxMs - this.now()
      this.timer = setTimeout(() => {
        // The bound is reached (a timer may fire a moment before the clock agrees): this stretch is over.
        this.busySince = Number.NEGATIVE_INFINITY
        this.wake()
      }, left)
      // A waiting walk never keeps the process alive: its host decides when it ends.
      this.timer.unref()
    }
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  private wake(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const waiters = this.waiters
    this.waiters = []
    for (const resolve of waiters) resolve()
  }
}

/** The process's foreground: held by the agent loop's steps, waited on by background walks. */
export const foreground = new Foreground()
