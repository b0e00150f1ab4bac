import { setFlagsFromString } from 'node:v8'

/**
 * V8 doubles a heap's young generation when much of it survives a collection, as it does while a
 * session starts, up to two 16 MB halves, and keeps it: ~20 MB of a later session's peak and
 * ~45 MB of a first baseline's, for no speed measured (docs/benchmarks.md). This keeps the main
 * thread's at its first size. `--max-semi-space-size` would say so too, but Node takes it only on
 * its command line, before the heap exists; the growth factor is read each time a heap would grow.
 * V8 puts the factor back to 2 whenever it sets up a new heap — a worker thread starting — so it is
 * set again once each worker is online (each worker's own young generation is sized where it is
 * started: snapshot/helperThreads.ts).
 */
export const YOUNG_GENERATION_FLAG = '--semi-space-growth-factor=1'

/** For the rest of this process's life. */
export function keepYoungGenerationSmall(): void {
  const keep = () => setFlagsFromString(YOUNG_GENERATION_FLAG)
  keep()
  process.on('worker', (worker) => worker.once('online', keep))
}
