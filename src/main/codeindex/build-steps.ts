import fs from 'node:fs'
import { STAT_FIELDS, STAT_OK, statFiles } from '../snapshot/statFiles'
import { foreground } from '../foreground'
import type { BuildReport } from './api'
import type { CodeIndexTables, StoredStat } from '../store/code-index-tables'
import type { FileJob } from './process-file'

/* Small pieces of a build that keep the main thread responsive (code-index.ts). */

/** Main-thread work between two yields to the event loop: bounded by time, not rows. */
export const SLICE_MS = 8

/**
 * Lets timers, I/O and the agent loop run between two slices of a long build; while an agent's
 * step runs (foreground.ts), the build waits for it.
 */
export async function yieldToLoop(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve))
  await foreground.wait()
}

/** True once the current slice has run SLICE_MS; `next()` after a yield starts a new one. */
export function sliceTimer(): { due(): boolean; next(): void } {
  let start = performance.now()
  return { due: () => performance.now() - start >= SLICE_MS, next: () => (start = performance.now()) }
}

/**
 * The report of a build that changed nothing: one stopped before its listing was
 * complete (`aborted`), or one whose files were vouched unchanged since its last check.
 */
export function nothingChanged(started: number, files: number, aborted: boolean): BuildReport {
  return {
    files,
    parsed: 0,
    unchanged: aborted ? 0 : files,
    removed: 0,
    skipped: [],
    parseErrors: [],
    errors: [],
    grammarErrors: [],
    aborted,
    seconds: (performance.now() - started) / 1000,
    workers: 0,
  }
}

/** Stored rows read per query of a build's check. */
const PAGE = 500

/**
 * The stored rows against the listing (sorted), a page at a time in path order: a
 * file whose size and mtime match is settled by a stat (on helper threads), the rest
 * go to the workers (rows of another extractor version too: their hashes still spare
 * unchanged bytes), as do listed files with no row. The loop is free between pages,
 * and a stop ends the check at once (then nothing is a job yet).
 */
export async function checkStored(c: {
  root: string
  listed: readonly string[]
  /** The listed files' stats as the caller just took them (STAT_FIELDS each): none are taken again. */
  stats?: Float64Array
  store: Pick<CodeIndexTables, 'page' | 'known'>
  /** The stored rows as a state file saved them at the index's current generation (checkState.ts). */
  saved?: readonly StoredStat[]
  isCurrent: (row: StoredStat) => boolean
  signal: AbortSignal
}): Promise<{
  jobs: FileJob[]
  gone: string[]
  unchanged: number
  /** Listed files with no row; undefined when stopped before the rows met the listing. */
  fresh?: number
  /** The stored rows it checked, in path order. */
  rows: readonly StoredStat[]
}> {
  const { root, store, signal } = c
  const rows = c.saved ?? (await readRows(store, signal))
  if (signal.aborted) return { jobs: [], gone: [], unchanged: 0, rows }
  const { kept, keptAt, gone, fresh } = matchSorted(c.listed, rows) ?? matchBySet(c.listed, rows)
  // `base + rel`, not path.join: listed paths are normal already, and join's result is a tree of
  // ~7 strings per path (its normalising), ~30 MB held by a queue of 72,000 jobs.
  const base = root.endsWith('/') ? root : `${root}/`
  const job = (rel: string): FileJob => ({ rel, abs: base + rel, known: store.known(rel) })
  const jobs: FileJob[] = []
  const toStat: StoredStat[] = []
  const statAt: number[] = []
  kept.forEach((row, i) => {
    if (!c.isCurrent(row)) return jobs.push(job(row.path))
    toStat.push(row)
    statAt.push(keptAt[i] * STAT_FIELDS)
  })
  const settled = c.stats
    ? settle(toStat, c.stats, (i) => statAt[i])
    : await settleByStat(root, toStat, signal)
  if (!settled) return { jobs: [], gone, unchanged: 0, fresh: fresh.length, rows }
  for (const row of settled.stale) jobs.push(job(row.path))
  for (const rel of fresh) jobs.push({ rel, abs: base + rel })
  return { jobs, gone, unchanged: settled.unchanged, fresh: fresh.length, rows }
}

/** Every stored row in path order, a page at a time with the loop free in between. */
async function readRows(store: Pick<CodeIndexTables, 'page'>, signal: AbortSignal): Promise<StoredStat[]> {
  const slice = sliceTimer()
  const rows: StoredStat[] = []
  for (let after = ''; !signal.aborted;) {
    const page = store.page(after, PAGE)
    for (const row of page) rows.push(row)
    if (page.length < PAGE) break
    after = page[page.length - 1].path
    if (slice.due()) {
      await yieldToLoop()
      slice.next()
    }
  }
  return rows
}

/** Reads the rows as they are now and saves them for the next process's check (checkState.ts). */
export async function saveRows(
  state: { save(rows: readonly StoredStat[], at: number, tree?: string): void },
  store: Pick<CodeIndexTables, 'page' | 'generation'>,
  signal: AbortSignal,
  tree?: string,
): Promise<void> {
  const at = store.generation()
  const rows = await readRows(store, signal)
  if (!signal.aborted) state.save(rows, at, tree)
}

interface Matched {
  /** Rows of listed files. */
  kept: StoredStat[]
  /** Where in the listing each of `kept` is. */
  keptAt: number[]
  /** Rows of files no longer listed. */
  gone: string[]
  /** Listed files with no row. */
  fresh: string[]
}

/**
 * Rows and listing side by side, both in `<` order: string compares where sets
 * would hash 72,000 fresh strings three times (~0.1 s). Undefined when the rows
 * are not in that order (SQLite sorts by UTF-8 bytes, which differs for paths with
 * characters past U+D7FF).
 */
function matchSorted(listed: readonly string[], rows: readonly StoredStat[]): Matched | undefined {
  const m: Matched = { kept: [], keptAt: [], gone: [], fresh: [] }
  let j = 0
  for (let i = 0; i < rows.length; i++) {
    const p = rows[i].path
    if (i > 0 && !(rows[i - 1].path < p)) return undefined
    while (j < listed.length && listed[j] < p) m.fresh.push(listed[j++])
    if (j < listed.length && listed[j] === p) {
      m.kept.push(rows[i])
      m.keptAt.push(j++)
    } else m.gone.push(p)
  }
  while (j < listed.length) m.fresh.push(listed[j++])
  return m
}

function matchBySet(listed: readonly string[], rows: readonly StoredStat[]): Matched {
  const m: Matched = { kept: [], keptAt: [], gone: [], fresh: [] }
  const at = new Map(listed.map((p, i) => [p, i]))
  const stored = new Set<string>()
  for (const row of rows) {
    const i = at.get(row.path)
    if (i !== undefined) {
      m.kept.push(row)
      m.keptAt.push(i)
      stored.add(row.path)
    } else m.gone.push(row.path)
  }
  for (const p of listed) if (!stored.has(p)) m.fresh.push(p)
  return m
}

/**
 * Splits stored rows into those whose file still has the stored size and mtime (its
 * content is taken as unchanged) and those to look at again. The stats run on
 * helper threads of low priority (statFiles): a warm start's check of 70,000 files
 * takes the event loop none of the ~0.4 s it took as stats between slices, which
 * starved the steps of a session that had just begun. Undefined once `signal` stops it: the helpers'
 * work is left behind, and a session's exit does not wait for it.
 */
export async function settleByStat(
  root: string,
  rows: readonly StoredStat[],
  signal: AbortSignal,
): Promise<{ unchanged: number; stale: StoredStat[] } | undefined> {
  const stats = await statFiles(
    root,
    rows.map((r) => r.path),
    { signal, background: true },
  )
  if (!stats) return undefined // stopped
  return settle(rows, stats, (i) => i * STAT_FIELDS)
}

/** The same split, by stats already taken: row `i`'s at `stats[offset(i)]`. */
function settle(
  rows: readonly StoredStat[],
  stats: Float64Array,
  offset: (i: number) => number,
): { unchanged: number; stale: StoredStat[] } {
  const stale: StoredStat[] = []
  let unchanged = 0
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]
    const o = offset(i)
    const isFile = (stats[o + 4] & fs.constants.S_IFMT) === fs.constants.S_IFREG
    if (stats[o] === STAT_OK && isFile && stats[o + 1] === row.size && stats[o + 2] === row.mtimeMs)
      unchanged++
    else stale.push(row)
  }
  return { unchanged, stale }
}

/** How a build ended: stopped or not, the check's fresh count, the files listed and those indexed. */
export interface BuildEnd {
  aborted: boolean
  fresh: number | undefined
  listed: readonly string[]
  indexed: ReadonlySet<string>
}

/**
 * Whether the index is whole after a build, and what to say when it is not. A stop
 * before the rows met the listing (`fresh` unknown) learned nothing: the index stays
 * as it was. After, it is whole when every listed file has a row (a stopped check of a
 * finished index): each as the last build saw it, and the next build checks again.
 */
export function coverageAfter(
  { aborted, fresh, listed, indexed }: BuildEnd,
  before: { complete: boolean; warning: string | undefined },
): { complete: boolean; warning: string | undefined } {
  if (!aborted || fresh === 0) return { complete: true, warning: undefined }
  if (fresh === undefined) return before
  const covered = listed.reduce((n, p) => n + (indexed.has(p) ? 1 : 0), 0)
  if (covered === listed.length) return { complete: true, warning: undefined }
  const warning = `The code index covers ${covered} of ${listed.length} files: its build was stopped; the next one continues it.`
  return { complete: false, warning }
}
