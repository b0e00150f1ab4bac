import type { StatCacheEntry, StatCacheTable } from '../store/snapshot-tables'

/**
 * Like git's index: what a file's stat looked like when we last hashed it. If
 * size, mtime, inode and mode still match, the hash is reused without reading.
 *
 * Racy case: a file written within the file system's timestamp granularity of
 * the moment we looked at it could be rewritten later with the same size and
 * mtime. So an entry only counts as clean when the file's mtime was already
 * RACY_MARGIN_MS older than the start of the snapshot that recorded it; other
 * entries are re-hashed once more (then recorded with a later `checkedAt`).
 * The margin covers the kernel's coarse clock tick and 1–2 s file systems.
 */
export const RACY_MARGIN_MS = 2000

/** An entry as its `stat_cache` row records it (store/snapshot-tables.ts). */
export type StatEntry = StatCacheEntry

/** The parts of a file's stat the cache compares. */
export interface FileStat {
  size: number
  mtimeMs: number
  ino: number
  mode: number
}

export interface StatCache {
  readonly size: number
  /** The cached hash when `st` proves the file unchanged, else undefined. */
  cleanHash(path: string, st: FileStat): string | undefined
  get(path: string): StatEntry | undefined
  /** Records an entry in memory; `flush` writes it. */
  set(path: string, entry: StatEntry): void
  /** Forgets every path not in `keep`. */
  retain(keep: ReadonlySet<string>): void
  /** Forgets one path. */
  forget(path: string): void
  /** Writes the changed and forgotten entries (call inside a transaction). */
  flush(): void
  /** After the flushing transaction committed: nothing is pending any more. */
  committed(): void
}

/**
 * `unloaded`: start from no entries instead of reading every row (70,000 rows cost
 * ~0.7 s), for a capture that re-reads only a few files anyway: what it records is
 * still written, and rows it never saw stay as they are.
 */
export function loadStatCache(table: StatCacheTable, opts: { unloaded?: boolean } = {}): StatCache {
  const entries = new Map<string, StatEntry>()
  const rows = opts.unloaded ? [] : table.all()
  for (const [path, size, mtimeMs, ino, mode, hash, checkedAt] of rows)
    entries.set(path, { size, mtimeMs, ino, mode, hash, checkedAt })
  const dirty = new Set<string>()
  const removed = new Set<string>()

  return {
    get size() {
      return entries.size
    },
    cleanHash(path, st) {
      const e = entries.get(path)
      if (!e) return undefined
      if (e.size !== st.size || e.mtimeMs !== st.mtimeMs || e.ino !== st.ino || e.mode !== st.mode)
        return undefined
      if (e.mtimeMs >= e.checkedAt - RACY_MARGIN_MS) return undefined
      return e.hash
    },
    get: (path) => entries.get(path),
    set(path, entry) {
      entries.set(path, entry)
      dirty.add(path)
      removed.delete(path)
    },
    retain(keep) {
      for (const path of entries.keys()) {
        if (keep.has(path)) continue
        entries.delete(path)
        dirty.delete(path)
        removed.add(path)
      }
    },
    forget(path) {
      // Unloaded, a row may exist that was never read: delete it all the same.
      if (!entries.delete(path) && !opts.unloaded) return
      dirty.delete(path)
      removed.add(path)
    },
    flush() {
      for (const path of removed) table.remove(path)
      for (const path of dirty) table.upsert(path, entries.get(path)!)
    },
    committed() {
      removed.clear()
      dirty.clear()
    },
  }
}
