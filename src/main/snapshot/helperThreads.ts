import { Worker } from 'node:worker_threads'

/**
 * A few worker threads that run code given as a string (so they need no file of
 * their own beside whatever bundle this module ends up in) and answer each
 * `{ id, … }` message with `{ id, out }`. Started on first use; an idle helper keeps
 * nothing alive. Once a helper fails, the pool is given up for good and `get`
 * answers undefined, so callers do the work on their own thread from then on.
 */
/**
 * The young generation of each helper's heap, in MB. V8's default (up to 16 MB a semi-space) let
 * each of a first baseline's read helpers hold tens of MB of short-lived read and compression
 * buffers between collections; at 8 MB a session's first baseline of the 72,000-file bench tree
 * peaked at 536–538 MB against 567–610 MB, no slower (bench/scale-first-run.ts, docs/benchmarks.md).
 */
const HELPER_YOUNG_GENERATION_MB = 8

export interface HelperThreads<Out> {
  /** The helpers, started now if they were not; undefined when they cannot run. */
  get(): readonly HelperThread<Out>[] | undefined
  /**
   * Ends the helpers (their heaps and buffers go back now, not at exit), answering what is still
   * asked of them with undefined, for the caller to do itself; the next `get` starts new ones.
   * Resolves once they are gone.
   */
  stop(): Promise<void>
  /** Sends `message` (plus its id) to the least busy helper; undefined when that is not possible. */
  run(message: Record<string, unknown>, transfer?: readonly ArrayBuffer[]): Promise<Out | undefined>
  /**
   * The same, on one given helper (to split a job evenly across all of them). With
   * `signal`, an abort answers undefined at once and the helper no longer keeps the
   * process alive for it (its late answer is dropped).
   */
  runOn(
    h: HelperThread<Out>,
    message: Record<string, unknown>,
    transfer?: readonly ArrayBuffer[],
    signal?: AbortSignal,
  ): Promise<Out | undefined>
}

export interface HelperThread<Out> {
  worker: Worker
  /** Messages sent and not answered, by id: one listener per helper, however many are in flight. */
  pending: Map<number, (out: Out | undefined) => void>
}

export function helperThreads<Out>(source: string, count: () => number): HelperThreads<Out> {
  let helpers: HelperThread<Out>[] | undefined
  let broken = false
  let nextId = 1
  /** Helpers being ended on purpose: their exit gives nothing up. */
  const ending = new WeakSet<Worker>()

  const giveUp = () => {
    broken = true
    const all = helpers ?? []
    helpers = undefined
    all.forEach(answerAll)
  }

  const start = () =>
    startHelper<Out>(source, (h) => {
      answerAll(h)
      if (!ending.has(h.worker)) giveUp()
    })

  const get = () => {
    if (helpers || broken) return helpers
    try {
      helpers = Array.from({ length: count() }, start)
    } catch {
      giveUp()
    }
    return helpers
  }

  const runOn: HelperThreads<Out>['runOn'] = (h, message, transfer = [], signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve(undefined)
      const id = nextId++
      try {
        h.worker.postMessage({ ...message, id }, [...transfer])
      } catch {
        resolve(undefined) // nothing was sent (a failed post moves no memory): the caller does it
        return
      }
      const abandon = () => {
        h.pending.delete(id)
        if (h.pending.size === 0) h.worker.unref()
        resolve(undefined)
      }
      signal?.addEventListener('abort', abandon, { once: true })
      h.pending.set(id, (out) => {
        signal?.removeEventListener('abort', abandon)
        resolve(out)
      })
      h.worker.ref() // keep the process alive until the answer arrives
    })

  return {
    get,
    runOn,
    async stop() {
      const all = helpers ?? []
      helpers = undefined
      for (const h of all) {
        ending.add(h.worker)
        answerAll(h)
      }
      await Promise.all(all.map((h) => h.worker.terminate()))
    },
    run(message, transfer) {
      const pool = get()
      if (!pool) return Promise.resolve(undefined)
      return runOn(
        pool.reduce((a, b) => (b.pending.size < a.pending.size ? b : a)),
        message,
        transfer,
      )
    },
  }
}

/** One helper; `failed` hears of its error or exit. */
function startHelper<Out>(source: string, failed: (h: HelperThread<Out>) => void): HelperThread<Out> {
  const worker = new Worker(source, {
    eval: true,
    resourceLimits: { maxYoungGenerationSizeMb: HELPER_YOUNG_GENERATION_MB },
  })
  const h: HelperThread<Out> = { worker, pending: new Map() }
  worker.on('message', ({ id, out }: { id: number; out: Out }) => {
    h.pending.get(id)?.(out)
    h.pending.delete(id)
    if (h.pending.size === 0) worker.unref()
  })
  worker.on('error', () => failed(h))
  worker.on('exit', () => failed(h))
  // An idle helper must not keep the process alive. After the listeners: adding a
  // 'message' listener refs the worker again, and a helper never sent anything then
  // held a finished CLI run open for good.
  worker.unref()
  return h
}

/** Answers what is still asked of a helper with undefined: the callers do it themselves. */
function answerAll<Out>(h: HelperThread<Out>): void {
  for (const resolve of h.pending.values()) resolve(undefined)
  h.pending.clear()
}
