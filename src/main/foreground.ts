/*
 * Foreground work: what the user waits on now — an agent's turn: its steps' calls, the making of its
 * requests, the model's answers (agent/loop.ts holds it from a turn's start to its end), and a run
 * about to start from the moment its baseline is taken (session/session.ts). Background
 * work of the same process (the code index watcher's first walk of the tree, a build's parse batches
 * and main-thread slices) asks `foreground.wait()` between its units and yields while a turn runs. On
 * 2 cores the watcher's walk alone made a session's first whole-tree search take ~0.80 s instead of
 * ~0.54 s (medians, a big tree's later sessions; docs/benchmarks.md).
 *
 * One owner for the whole process, not one per session: the cores and libuv's I/O threads are the
 * process's, so one session's step is slowed as much by another session's walk as by its own.
 *
 * Yielding is bounded: a hold keeps background work back for at most `maxMs`. A command that runs
 * for minutes (a test suite, a build) or a model's long answer must not keep the index's watches
 * from being set up, or the files written in folders not yet watched would go unseen by the index.
 * The loop takes a new hold for each request and each step, so a turn whose every request and
 * step takes less than `maxMs` keeps background work back until it ends.
 */

/** Longest one hold keeps background work back. */
export const FOREGROUND_MAX_MS = 1_000

export class Foreground {
  /** Each hold under way, with when it began (-Infinity once its bound has passed). */
  private readonly holds = new Map<object, number>()
  private waiters: Array<() => void> = []
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly maxMs = FOREGROUND_MAX_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Marks foreground work under way until the returned function is called (once is enough; more are ignored). */
  hold(): () => void {
    const token = {}
    this.holds.set(token, this.now())
    return () => {
      if (this.holds.delete(token) && !this.busy()) this.wake()
    }
  }

  /**
   * True while a hold younger than `maxMs` is on. The bound is each hold's own: one session's step
   * waiting minutes on an approval does not take the priority from another session's step.
   */
  busy(): boolean {
    return this.now() - this.newestHold() < this.maxMs
  }

  /**
   * Undefined when background work may go on now (no promise to await on the common path); else a
   * promise that resolves when the holds end or the newest has lasted `maxMs`.
   */
  wait(): Promise<void> | undefined {
    if (!this.busy()) return undefined
    if (!this.timer) {
      const newest = this.newestHold()
      this.timer = setTimeout(
        () => {
          // Those holds are past their bound (a timer may fire a moment before the clock agrees); a
          // newer one since gets its own timer when the waiters ask again.
          for (const [token, began] of this.holds)
            if (began <= newest) this.holds.set(token, Number.NEGATIVE_INFINITY)
          this.wake()
        },
        newest + this.maxMs - this.now(),
      )
      // A waiting walk never keeps the process alive: its host decides when it ends.
      this.timer.unref()
    }
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** When the newest hold under way began; -Infinity with none. */
  private newestHold(): number {
    let newest = Number.NEGATIVE_INFINITY
    for (const began of this.holds.values()) newest = Math.max(newest, began)
    return newest
  }

  private wake(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const waiters = this.waiters
    this.waiters = []
    for (const resolve of waiters) resolve()
  }
}

/** The process's foreground: held by the agent loop's turns, waited on by background walks. */
export const foreground = new Foreground()
