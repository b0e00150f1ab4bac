import { setFlagsFromString } from 'node:v8'

/**
 * After each full collection V8 lets a heap grow to a multiple of what was live before the next,
 * a multiple it picks from the collector's speed: up to 4 for a process allowed gigabytes, as a
 * CLI on a desktop is. A first baseline of a big tree keeps ~70 MB live on the session's thread
 * and makes garbage that lives through a few young collections (each slice's stats, reads and
 * records), so the heap grew to ~105 MB before its next full collection, and the code index's
 * build after it (its parse thread included) grew the same way. At 1.5 times, first sessions on the
 * 85,000-file bench tree peaked at 274–280 MB against 297–341 MB, their first request as early
 * (medians 5.78 s against 5.84 s) and their steps as fast (six alternated each, docs/benchmarks.md).
 * A later session, which starts from the project's saved state, gains little memory from it and
 * pays ~40 ms more in collections, so the CLI's entry sets it only when no saved state is found
 * (a first session, and every command but `stepwise edit`). V8 reads the factor each time it sets
 * a heap's limit, so it can be set once Node has started, and it holds for the worker threads too.
 */
export const OLD_GENERATION_FLAG = '--heap-growing-percent=50'

/** For the rest of this process's life. */
export function keepOldGenerationTight(): void {
  setFlagsFromString(OLD_GENERATION_FLAG)
}
