/**
 * A long task that callers share (the code index's build): a call while it runs
 * joins it and hears its progress; it stops only when every caller's signal has
 * aborted, since a caller that still waits must not lose it to another's Stop.
 */
export interface SharedRun<P, R, O extends object = object> {
  /** `opts` beyond signal and progress go to the run a call starts (a joining call's are unused). */
  start(opts?: O & { signal?: AbortSignal; onProgress?: (progress: P) => void }): Promise<R>
  /** The last progress of the run under way; undefined when none runs. */
  progress(): P | undefined
}

interface Running<P, R> {
  promise: Promise<R>
  controller: AbortController
  /** Every caller's signal (undefined: a caller that never stops it). */
  signals: Set<AbortSignal | undefined>
  listeners: Set<(progress: P) => void>
}

export function sharedRun<P, R, O extends object = object>(
  run: (signal: AbortSignal, publish: (progress: P) => void, opts: Partial<O>) => Promise<R>,
  /** A final progress report (after it, `progress()` is undefined). */
  isFinal: (progress: P) => boolean,
): SharedRun<P, R, O> {
  let running: Running<P, R> | undefined
  let last: P | undefined
  const stopIfAllAborted = () => {
    if (running && [...running.signals].every((s) => s?.aborted)) running.controller.abort()
  }
  return {
    start(opts: Partial<O> & { signal?: AbortSignal; onProgress?: (progress: P) => void } = {}) {
      opts.signal?.addEventListener('abort', stopIfAllAborted, { once: true })
      if (running) {
        running.signals.add(opts.signal)
        if (opts.onProgress) {
          running.listeners.add(opts.onProgress)
          if (last !== undefined) opts.onProgress(last)
        }
        return running.promise
      }
      const controller = new AbortController()
      if (opts.signal?.aborted) controller.abort()
      const listeners = new Set<(p: P) => void>(opts.onProgress ? [opts.onProgress] : [])
      const publish = (p: P) => {
        last = isFinal(p) ? undefined : p
        for (const l of listeners) l(p)
      }
      const promise = run(controller.signal, publish, opts).finally(() => {
        last = undefined
        running = undefined
      })
      running = { promise, controller, signals: new Set([opts.signal]), listeners }
      return promise
    },
    progress: () => last,
  }
}
