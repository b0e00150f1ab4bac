import { createBlobStore } from '../snapshot/blobs'
import { decodeManifest } from '../snapshot/manifest'
import type { Store } from './types'
import { snapshotTables } from './snapshot-tables'

/**
 * Deleting sessions for good: their rows, events and traffic go (the schema cascades), and
 * so do their snapshots and the blobs no other session uses. What stays, on purpose:
 * - a snapshot another session's events name (a fork's copied checkpoints point at its
 *   parent's snapshots: a fork stays valid after its parent is deleted);
 * - the newest snapshot of each project folder: the next snapshot of that folder, in this
 *   process or another one, is stored as a delta on it and reuses its unchanged blobs;
 * - blobs the stat cache or a pending restore still names, and files kept outside the snapshots
 *   (changed under ignored folders) that another session's events name.
 * Blobs are swept only among those the purged snapshots reached, so a blob written a moment
 * ago by another process for a snapshot it has not recorded yet is not touched (unless it has
 * the same content as a purged file and lands in the few milliseconds of the purge).
 */

export interface PurgeResult {
  sessions: number
  snapshots: number
  blobs: number
  /** Stored (compressed) bytes of the blobs removed. */
  blobBytes: number
}

const SNAPSHOT_FIELDS = ['snapshotId', 'savedSnapshotId', 'baselineSnapshotId'] as const

export function purgeSessions(store: Store, ids: readonly string[]): PurgeResult {
  const { db } = store
  const blobs = createBlobStore(snapshotTables(db).blobs)

  // Every hash a manifest chain reaches: its manifests and their files (decoded once each).
  const decoded = new Map<string, { files: string[]; base?: string }>()
  const reach = (manifestHash: string, into: Set<string>): void => {
    for (let at: string | undefined = manifestHash; at && !into.has(at);) {
      into.add(at)
      let m = decoded.get(at)
      if (!m) {
        if (!blobs.has(at)) return
        const d = decodeManifest(blobs.get(at, 'a snapshot manifest'))
        m =
          d.kind === 'full'
            ? { files: d.files.map((f) => f.hash) }
            : { files: d.set.map((f) => f.hash), base: d.base }
        decoded.set(at, m)
      }
      for (const f of m.files) into.add(f)
      at = m.base
    }
  }

  const run = db.transaction((): PurgeResult => {
    const present = ids.filter((id) => store.getSession(id))
    if (present.length === 0) return { sessions: 0, snapshots: 0, blobs: 0, blobBytes: 0 }
    const marks = present.map(() => '?').join(',')

    // Snapshots still named by the events or pending restores of the sessions that stay.
    const named = new Set<number>()
    const rows = db
      .prepare<string[], { payload: string }>(
        `SELECT payload FROM events WHERE session_id NOT IN (${marks}) AND payload LIKE '%napshotId%'`,
      )
      .all(...present)
    for (const { payload } of rows) {
      const p = JSON.parse(payload) as Record<string, unknown>
      for (const field of SNAPSHOT_FIELDS) if (typeof p[field] === 'number') named.add(p[field])
    }
    const journals = db
      .prepare<string[], { snapshot_id: number; saved_snapshot_id: number }>(
        `SELECT snapshot_id, saved_snapshot_id FROM restore_journal WHERE session_id NOT IN (${marks})`,
      )
      .all(...present)
    for (const j of journals) named.add(j.snapshot_id).add(j.saved_snapshot_id)
    const newest = db.prepare<[], number>('SELECT MAX(id) FROM snapshots GROUP BY root').pluck().all()
    for (const id of newest) named.add(id)

    const owned = db
      .prepare<string[], { id: number; manifest_hash: string }>(
        `SELECT id, manifest_hash FROM snapshots WHERE session_id IN (${marks})`,
      )
      .all(...present)
    const doomed = owned.filter((s) => !named.has(s.id))
    const candidates = new Set<string>()
    for (const s of doomed) reach(s.manifest_hash, candidates)
    // Files kept outside the snapshots (changed by a command under an ignored folder), by hash.
    const keptBy = (which: 'IN' | 'NOT IN') =>
      db
        .prepare<string[], string>(
          `SELECT payload FROM events WHERE session_id ${which} (${marks}) AND payload LIKE '%"stored":true%'`,
        )
        .pluck()
        .all(...present)
        .flatMap(keptHashes)
    for (const hash of keptBy('IN')) candidates.add(hash)

    const dropSnapshot = db.prepare<[number]>('DELETE FROM snapshots WHERE id = ?')
    for (const s of doomed) dropSnapshot.run(s.id)
    const sessions = db.prepare<string[]>(`DELETE FROM sessions WHERE id IN (${marks})`).run(...present)

    // What the remaining snapshots, the stat cache and pending restores still use.
    const live = new Set<string>()
    if (candidates.size > 0) {
      for (const hash of keptBy('NOT IN')) live.add(hash)
      for (const hash of db.prepare<[], string>('SELECT DISTINCT manifest_hash FROM snapshots').pluck().all())
        reach(hash, live)
      for (const hash of db.prepare<[], string>('SELECT DISTINCT hash FROM stat_cache').pluck().all())
        live.add(hash)
      const pending = db
        .prepare<[], string>(`SELECT plan FROM restore_journal WHERE state = 'pending'`)
        .pluck()
        .all()
      for (const plan of pending)
        for (const w of (JSON.parse(plan) as { write?: Array<{ hash: string }> }).write ?? [])
          live.add(w.hash)
    }
    const sizeOf = db.prepare<[string], number>('SELECT length(data) FROM blobs WHERE hash = ?').pluck()
    const dropBlob = db.prepare<[string]>('DELETE FROM blobs WHERE hash = ?')
    let blobCount = 0
    let blobBytes = 0
    for (const hash of candidates) {
      if (live.has(hash)) continue
      const size = sizeOf.get(hash)
      if (size === undefined) continue
      dropBlob.run(hash)
      blobCount++
      blobBytes += size
    }
    return { sessions: sessions.changes, snapshots: doomed.length, blobs: blobCount, blobBytes }
  })
  return run.immediate()
}

/** The hashes a `checkpoint.created` payload names as kept files (`ignored[].stored`). */
function keptHashes(payload: string): string[] {
  const ignored = (JSON.parse(payload) as { ignored?: Array<{ sha256?: string; stored?: boolean }> }).ignored
  return (ignored ?? []).flatMap((c) => (c.stored && c.sha256 ? [c.sha256] : []))
}

/**
 * Gives the freed pages back to the file system: checkpoints the log and rebuilds the file.
 * Another process holding the database open can make VACUUM busy; the space is then reused
 * by later writes instead, and the answer says so (false).
 */
export function compactStore(store: Store): boolean {
  try {
    store.db.exec('VACUUM')
    store.db.pragma('wal_checkpoint(TRUNCATE)')
    return true
  } catch {
    return false
  }
}
