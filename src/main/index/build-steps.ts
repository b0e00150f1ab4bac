import fs from 'node:fs'
import { STAT_FIELDS, STAT_OK, statFiles } from '../snapshot/statFiles'
import type { BuildReport } from './api'
import path from 'node:path'
import type { StoredStat, createIndexStore } from './index-store'
import type { FileJob } from './process-file'

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

/** Stored rows read per query of a build's check. */
const PAGE = 500

/**
 * The stored rows against the listing, a page at a time in path order: a file whose
 * size and mtime match is settled by a stat (on helper threads), the rest go to the
 * workers (rows of another extractor version too: their hashes still spare unchanged
 * bytes), as do listed files with no row. The loop is free between slices, and a stop
 * ends the check at once (then listed files with no row are not jobs yet).
 */
export async function checkStored(c: {
  root: string
  listed: readonly string[]
  keep: ReadonlySet<string>
  store: Pick<ReturnType<typeof createIndexStore>, 'page' | 'known'>
  isCurrent: (row: StoredStat) => boolean
  signal: AbortSignal
}): Promise<{ jobs: FileJob[]; gone: string[]; unchanged: number }> {
  const { root, store, signal } = c
  const job = (rel: string): FileJob => ({ rel, abs: path.join(root, rel), known: store.known(rel) })
  const slice = sliceTimer()
  const jobs: FileJob[] = []
  const stored = new Set<string>()
  const gone: string[] = []
  const toStat: StoredStat[] = []
  for (let after = ''; !signal.aborted;) {
    const page = store.page(after, PAGE)
    for (const row of page) {
      if (!c.keep.has(row.path)) {
        gone.push(row.path)
        continue
      }
      stored.add(row.path)
      if (c.isCurrent(row)) toStat.push(row)
      else jobs.push(job(row.path))
    }
    if (page.length < PAGE) break
    after = page[page.length - 1].path
    if (slice.due()) {
      await yieldToLoop()
      slice.next()
    }
  }
  if (signal.aborted) return { jobs, gone, unchanged: 0 }
  const settled = await settleByStat(root, toStat)
  for (const row of settled.stale) jobs.push(job(row.path))
  for (const rel of c.listed) if (!stored.has(rel)) jobs.push({ rel, abs: path.join(root, rel) })
  return { jobs, gone, unchanged: settled.unchanged }
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
  rows: readonly StoredStat[],
): Promise<{ unchanged: number; stale: StoredStat[] }> {
  const stats = await statFiles(
    root,
    rows.map((r) => r.path),
  )
  const stale: StoredStat[] = []
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
