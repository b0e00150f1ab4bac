import fs from 'node:fs'
import { STAT_FIELDS, STAT_OK, statFiles } from '../snapshot/statFiles'
import type { BuildReport } from './api'
import type { StoredRow } from './index-store'

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

/**
 * Splits stored rows into those whose file still has the stored size and mtime (its
 * content is taken as unchanged) and those to look at again. The stats run on
 * helper threads (statFiles): a warm start's check of 70,000 files takes the event
 * loop none of the ~0.4 s it took as stats between slices, which starved the steps
 * of a session that had just begun.
 */
export async function settleByStat(
  root: string,
  rows: readonly StoredRow[],
): Promise<{ unchanged: number; stale: StoredRow[] }> {
  const stats = await statFiles(
    root,
    rows.map((r) => r.path),
  )
  const stale: StoredRow[] = []
  let unchanged = 0
  for (let i = 0, o = 0; i < rows.length; i++, o += STAT_FIELDS) {
    const row = rows[i]
    const isFile = (stats[o + 4] & fs.constants.S_IFMT) === fs.constants.S_IFREG
    if (stats[o] === STAT_OK && isFile && stats[o + 1] === row.size && stats[o + 2] === row.mtimeMs)
      unchanged++
    else stale.push(row)
  }
  return { unchanged, stale }
}
