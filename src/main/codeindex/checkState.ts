import { createHash } from 'node:crypto'
import path from 'node:path'
import { z } from 'zod'
import { bytesOf, float64s, readFlatFile, writeFlatFile } from '../store/flatFile'
import type { StoredStat } from '../store/code-index-tables'

/**
 * The index's rows as a build's check needs them (path, size, mtime, extractor
 * version), kept in a flat file beside the store so that the next process reads
 * them in milliseconds, as the snapshotter keeps its listing (snapshot/savedState.ts).
 * From SQLite the same 72,000 rows cost ~0.14 s of the session's thread and their
 * paths ~0.06 s more, every session.
 *
 * A cache and nothing more: it is used only while the index's generation (which
 * counts every change to its rows) is the one it was written at, and anything
 * truncated, garbled or of another version is ignored. It is replaced whole by a
 * rename, so a crash leaves the old file or the new one.
 */

const MAGIC = 'stepwise-index-check 1'
/** Per row: size, mtimeMs, version. */
const FIELDS = 3

const headerSchema = z.object({
  magic: z.string(),
  root: z.string(),
  generation: z.number(),
  rows: z.number(),
  /** Byte length of the paths section (UTF-8, joined by NUL). */
  pathBytes: z.number(),
  /**
   * The tree the rows were last found true of by a finished check, as the baseline
   * named it (VouchedListing.unchangedSince); absent when unknown.
   */
  tree: z.string().optional(),
})
type Header = z.infer<typeof headerSchema>

/** The file for `root`'s index in the store's folder `dir`. */
export function checkStateFile(dir: string, root: string): string {
  const name = createHash('sha256').update(root).digest('hex').slice(0, 32)
  return path.join(dir, 'index-state', `${name}.state`)
}

/** What a check state holds: `rows` (in path order) as the index of `root` at `generation`, found true of `tree`. */
export interface CheckStateContent {
  root: string
  generation: number
  rows: readonly StoredStat[]
  tree?: string
}

export function saveCheckState(file: string, { root, generation, rows, tree }: CheckStateContent): void {
  const paths = Buffer.from(rows.map((r) => r.path).join('\0'), 'utf8')
  const numbers = new Float64Array(rows.length * FIELDS)
  rows.forEach((r, i) => numbers.set([r.size, r.mtimeMs, r.version], i * FIELDS))
  const header: Header = { magic: MAGIC, root, generation, rows: rows.length, pathBytes: paths.length, tree }
  writeFlatFile(file, header, [paths, bytesOf(numbers)])
}

/** The header saved for `root` at `generation`, when the file is whole. */
function readHeader(file: string, root: string, generation: number) {
  // The numbers are the last section: read straight into their array.
  const read = readFlatFile(file, headerSchema, (h) => h.rows * FIELDS * 8)
  if (!read) return undefined
  const { header: h, data, at, tail } = read
  if (h.magic !== MAGIC || h.root !== root || h.generation !== generation) return undefined
  if (data.length + (tail?.byteLength ?? 0) !== at + h.pathBytes + h.rows * FIELDS * 8) return undefined
  return read
}

/** The rows saved for `root` at `generation`, or undefined when there are none to trust. */
export function loadCheckState(file: string, root: string, generation: number): StoredStat[] | undefined {
  const read = readHeader(file, root, generation)
  if (!read) return undefined
  const { header: h, data, at, tail } = read
  try {
    const paths = h.rows === 0 ? [] : data.toString('utf8', at, at + h.pathBytes).split('\0')
    if (paths.length !== h.rows) return undefined
    const numbers = tail ?? float64s(data, at + h.pathBytes, h.rows * FIELDS * 8)
    return paths.map((p, i) => ({
      path: p,
      size: numbers[i * FIELDS],
      mtimeMs: numbers[i * FIELDS + 1],
      version: numbers[i * FIELDS + 2],
    }))
  } catch {
    return undefined // garbled: as if there were none
  }
}

/**
 * One index's use of its state file: loaded with the paths at a warm start (when it
 * matches the index's generation), taken once by the next build's check, and written
 * again after a finished build whose rows it no longer matches.
 */
export function createCheckStateCache(file: string | undefined, root: string, generation: () => number) {
  let loaded: { generation: number; rows: StoredStat[] } | undefined
  // Read once per process: later builds in it (the app's) check from SQLite.
  let read = false
  const load = (): StoredStat[] | undefined => {
    if (!file) return undefined
    read = true
    const g = generation()
    const rows = loadCheckState(file, root, g)
    loaded = rows && { generation: g, rows }
    return rows
  }
  return {
    /** The saved rows, if they are the index's rows now. */
    load,
    /** The saved rows for one check (read now if they were not), while still current; then forgotten. */
    take(): StoredStat[] | undefined {
      if (!loaded && !read) load()
      const l = loaded
      loaded = undefined
      return l && l.generation === generation() ? l.rows : undefined
    },
    /** Whether the saved rows are the index's rows now, found true of `tree` by a finished check. */
    checkedAgainst(tree: string): boolean {
      return file !== undefined && readHeader(file, root, generation())?.header.tree === tree
    },
    /** Writes `rows`, read at `at` (the generation), unless the index changed since; see Header.tree. */
    save(rows: readonly StoredStat[], at: number, tree?: string): void {
      if (!file || at !== generation()) return
      try {
        saveCheckState(file, { root, generation: at, rows, tree })
      } catch {
        // Only a cache: the next check reads the rows from SQLite.
      }
    },
  }
}
