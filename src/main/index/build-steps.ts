import fs from 'node:fs'
import type { BuildReport } from './api'
import type { KnownFile } from './process-file'

/* Small pieces of a build that keep the main thread responsive (code-index.ts). */

/** Main-thread work between two yields to the event loop: bounded by time, not rows. */
export const SLICE_MS = 8

/** Lets timers, I/O and the agent loop run between two slices of a long build. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** True once the current slice has run SLICE_MS; `next()` after a yield starts a new one. */
export function sliceTimer(): { due(): boolean; next(): void } {
  let start = performance.now()
  return { due: () => performance.now() - start >= SLICE_MS, next: () => (start = performance.now()) }
}

/** The report of a build stopped before its listing was complete: nothing changed. */
export function stoppedBeforeListing(started: number, files: number): BuildReport {
  return {
    files,
    parsed: 0,
    unchanged: 0,
    removed: 0,
    skipped: [],
    parseErrors: [],
    errors: [],
    grammarErrors: [],
    aborted: true,
    seconds: (performance.now() - started) / 1000,
    workers: 0,
  }
}

/** True when the file's size and mtime are the stored ones (its content is taken as unchanged). */
export function statMatches(abs: string, known: Pick<KnownFile, 'size' | 'mtimeMs'>): boolean {
  try {
    const st = fs.statSync(abs)
    return st.isFile() && st.size === known.size && st.mtimeMs === known.mtimeMs
  } catch {
    return false
  }
}
