import {
  toSnapshotInfo,
  type ImportedSession,
  type SnapshotInfo,
  type SnapshotRow,
  type StoredEvent,
} from './records'
import type { SqliteDatabase } from './sqlite'
import type { ImportedTraffic, TrafficRepository } from './traffic'

/**
 * What a bundle (timetravel/bundle-*.ts) reads from the store and writes into it. An export
 * reads in pages; an import writes every table in one transaction the store owns, so a refused
 * bundle leaves the store as it was.
 */

/** A blob as stored: `encoding` 0 raw, 1 deflate-raw, 2 brotli. */
export interface StoredBlob {
  size: number
  encoding: number
  data: Buffer
}

/** A snapshot row as a bundle carries it. */
export type SnapshotRecord = Omit<SnapshotInfo, 'id'>

/** The writes of one import, each a typed record; all of them commit or none. */
export interface ImportWriter {
  session(row: ImportedSession): void
  /** Returns the id the snapshot got here. */
  snapshot(record: SnapshotRecord): number
  /** Returns false when the store held that blob already. */
  blob(hash: string, blob: StoredBlob): boolean
  event(sessionId: string, event: StoredEvent): void
  traffic(sessionId: string, entry: ImportedTraffic): void
}

export interface BundleAccess {
  /** Runs `fn` in one transaction: when it throws, nothing it wrote stays. */
  importing<T>(fn: (writer: ImportWriter) => T): T
  eventPage(sessionId: string, afterSeq: number, limit: number): StoredEvent[]
  trafficPage: TrafficRepository['page']
  snapshot(id: number): SnapshotInfo | undefined
  /** The ids of the snapshots taken for the session, oldest first. */
  ownSnapshotIds(sessionId: string): number[]
  blob(hash: string): StoredBlob | undefined
}

export function createBundleAccess(
  db: SqliteDatabase,
  tables: {
    sessions: { insertImported(row: ImportedSession): void }
    events: {
      page(sessionId: string, afterSeq: number, limit: number): StoredEvent[]
      insertImported(sessionId: string, event: StoredEvent): void
    }
    traffic: TrafficRepository
  },
): BundleAccess {
  const stmt = {
    snapshot: db.prepare<[number], SnapshotRow>('SELECT * FROM snapshots WHERE id = ?'),
    ownSnapshots: db
      .prepare<[string], number>('SELECT id FROM snapshots WHERE session_id = ? ORDER BY id')
      .pluck(),
    blob: db.prepare<[string], StoredBlob>('SELECT size, encoding, data FROM blobs WHERE hash = ?'),
    insertBlob: db.prepare<[string, number, number, Buffer]>(
      'INSERT OR IGNORE INTO blobs (hash, size, encoding, data) VALUES (?, ?, ?, ?)',
    ),
    insertSnapshot: db.prepare(
      `INSERT INTO snapshots (session_id, root, label, created_at, manifest_hash, file_count, total_bytes)
       VALUES (@sessionId, @root, @label, @createdAt, @manifestHash, @fileCount, @totalBytes)`,
    ),
  }
  const writer: ImportWriter = {
    session: (row) => tables.sessions.insertImported(row),
    snapshot: (record) => Number(stmt.insertSnapshot.run(record).lastInsertRowid),
    blob: (hash, b) => stmt.insertBlob.run(hash, b.size, b.encoding, b.data).changes === 1,
    event: (sessionId, event) => tables.events.insertImported(sessionId, event),
    traffic: (sessionId, entry) => tables.traffic.insertImported(sessionId, entry),
  }
  return {
    importing: (fn) => db.transaction(() => fn(writer))(),
    eventPage: tables.events.page,
    trafficPage: tables.traffic.page,
    snapshot(id) {
      const r = stmt.snapshot.get(id)
      return r && toSnapshotInfo(r)
    },
    ownSnapshotIds: (sessionId) => stmt.ownSnapshots.all(sessionId),
    blob: (hash) => stmt.blob.get(hash),
  }
}
