import type { SqliteDatabase } from './sqlite'
import { databaseOf } from './handle'
import type { SnapshotRow } from './records'
import type { Store } from './types'

/**
 * The snapshot tables' SQL: `blobs` (content by hash), `snapshots` (a row per snapshot
 * naming its manifest blob) and `stat_cache` (what a file's stat looked like when it was
 * last hashed). The snapshotter (snapshot/) decides what to store; this file only says
 * how rows are read and written, so nothing outside store/ runs SQL against them.
 */

/** A stored blob as it sits in the table: `data` encoded by `encoding` (snapshot/blobs.ts). */
export interface BlobRow {
  size: number
  encoding: number
  data: Buffer
}

export interface BlobTable {
  has(hash: string): boolean
  /** Inserts unless `hash` is there already; true when a row was added. */
  insert(hash: string, size: number, encoding: number, data: Buffer): boolean
  get(hash: string): BlobRow | undefined
}

/** A row of `snapshots`, with the table's column names. */
export type { SnapshotRow } from './records'

export interface NewSnapshotRow {
  sessionId: string | null
  root: string
  label: string | null
  createdAt: number
  manifestHash: string
  fileCount: number
  totalBytes: number
}

/** The `snapshots` rows of one project folder (`root`), except `byId`, which reads any. */
export interface SnapshotTable {
  byId(id: number): SnapshotRow | undefined
  /** The newest snapshot of the root, if any. */
  latest(): SnapshotRow | undefined
  /** Oldest first; with `sessionId`, only that session's. */
  list(sessionId?: string): SnapshotRow[]
  any(): boolean
  /** Returns the new row's id. */
  insert(row: NewSnapshotRow): number
}

/** A `stat_cache` row: path, size, mtime_ms, ino, mode, hash, checked_at. */
export type StatCacheRow = [string, number, number, number, number, string, number]

/** What a `stat_cache` row records of one path. */
export interface StatCacheEntry {
  size: number
  mtimeMs: number
  ino: number
  mode: number
  hash: string
  /** Date.now() at the start of the snapshot that recorded this entry. */
  checkedAt: number
}

/** The `stat_cache` rows of one root. */
export interface StatCacheTable {
  /** Every row of the root, as arrays (~2× faster than an object per row). */
  all(): StatCacheRow[]
  upsert(path: string, entry: StatCacheEntry): void
  remove(path: string): void
}

export interface SnapshotTables {
  readonly blobs: BlobTable
  snapshots(root: string): SnapshotTable
  statCache(root: string): StatCacheTable
  /** `fn` wrapped to run in one transaction (nested calls join the outer one). */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R
}

function blobTable(db: SqliteDatabase): BlobTable {
  const hasStmt = db.prepare<[string], number>('SELECT 1 FROM blobs WHERE hash = ?').pluck()
  const insertStmt = db.prepare<[string, number, number, Buffer]>(
    'INSERT OR IGNORE INTO blobs (hash, size, encoding, data) VALUES (?, ?, ?, ?)',
  )
  const getStmt = db.prepare<[string], BlobRow>('SELECT size, encoding, data FROM blobs WHERE hash = ?')
  return {
    has: (hash) => hasStmt.get(hash) !== undefined,
    insert: (hash, size, encoding, data) => insertStmt.run(hash, size, encoding, data).changes === 1,
    get: (hash) => getStmt.get(hash),
  }
}

function snapshotTable(db: SqliteDatabase, root: string): SnapshotTable {
  const selectSnapshot = db.prepare<[number], SnapshotRow>('SELECT * FROM snapshots WHERE id = ?')
  const selectLatest = db.prepare<[string], SnapshotRow>(
    'SELECT * FROM snapshots WHERE root = ? ORDER BY id DESC LIMIT 1',
  )
  const selectByRoot = db.prepare<[string], SnapshotRow>('SELECT * FROM snapshots WHERE root = ? ORDER BY id')
  const selectAnyOfRoot = db
    .prepare<[string], number>('SELECT 1 FROM snapshots WHERE root = ? LIMIT 1')
    .pluck()
  const selectBySession = db.prepare<[string, string], SnapshotRow>(
    'SELECT * FROM snapshots WHERE root = ? AND session_id = ? ORDER BY id',
  )
  const insertSnapshot = db.prepare<[NewSnapshotRow]>(
    `INSERT INTO snapshots (session_id, root, label, created_at, manifest_hash, file_count, total_bytes)
     VALUES (@sessionId, @root, @label, @createdAt, @manifestHash, @fileCount, @totalBytes)`,
  )
  return {
    byId: (id) => selectSnapshot.get(id),
    latest: () => selectLatest.get(root),
    list: (sessionId) =>
      sessionId === undefined ? selectByRoot.all(root) : selectBySession.all(root, sessionId),
    any: () => selectAnyOfRoot.get(root) !== undefined,
    insert: (row) => Number(insertSnapshot.run(row).lastInsertRowid),
  }
}

function statCacheTable(db: SqliteDatabase, root: string): StatCacheTable {
  // Positional parameters: a first baseline writes a row per file (~85,000), and binding them by
  // name from a spread object cost ~1.7× as much.
  const upsert = db.prepare<[string, string, number, number, number, number, string, number]>(
    `INSERT INTO stat_cache (root, path, size, mtime_ms, ino, mode, hash, checked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(root, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, ino = excluded.ino,
       mode = excluded.mode, hash = excluded.hash, checked_at = excluded.checked_at`,
  )
  const remove = db.prepare<[string, string]>('DELETE FROM stat_cache WHERE root = ? AND path = ?')
  return {
    all: () =>
      db
        .prepare<[string], StatCacheRow>(
          'SELECT path, size, mtime_ms, ino, mode, hash, checked_at FROM stat_cache WHERE root = ?',
        )
        .raw()
        .all(root),
    upsert: (path, e) => void upsert.run(root, path, e.size, e.mtimeMs, e.ino, e.mode, e.hash, e.checkedAt),
    remove: (path) => void remove.run(root, path),
  }
}

/** One set per database: its blob statements are prepared once, on first use. */
const opened = new WeakMap<SqliteDatabase, SnapshotTables>()

export function snapshotTables(db: SqliteDatabase): SnapshotTables {
  let tables = opened.get(db)
  if (tables) return tables
  let blobs: BlobTable | undefined
  tables = {
    get blobs() {
      return (blobs ??= blobTable(db))
    },
    snapshots: (root) => snapshotTable(db, root),
    statCache: (root) => statCacheTable(db, root),
    transaction: (fn) => db.transaction(fn),
  }
  opened.set(db, tables)
  return tables
}

/** The snapshot tables of a store: what the snapshotter and the blob readers are given. */
export function snapshotTablesOf(store: Store): SnapshotTables {
  return snapshotTables(databaseOf(store))
}
