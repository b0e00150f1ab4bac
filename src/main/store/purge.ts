import { z } from 'zod'
import { isRecord } from '../../shared/records'
import { databaseOf } from './handle'
import type { SqliteDatabase } from './sqlite'
import type { Store } from './types'

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

/** What a stored manifest names: its files' hashes and, for a delta, the manifest it builds on. */
export interface ManifestLinks {
  files: string[]
  base?: string
}

/**
 * Reads the manifest stored as blob `hash` (undefined when the store does not hold it). The
 * manifest format belongs to the snapshotter: the caller passes its reader (snapshot/manifest.ts
 * #manifestLinks), so the store does not depend on it.
 */
export type ManifestReader = (hash: string) => ManifestLinks | undefined

export function purgeSessions(
  store: Store,
  ids: readonly string[],
  readManifest: ManifestReader,
): PurgeResult {
  const db = databaseOf(store)
  const reach = manifestReach(readManifest)
  const run = db.transaction((): PurgeResult => {
    const present = ids.filter((id) => store.getSession(id))
    if (present.length === 0) return { sessions: 0, snapshots: 0, blobs: 0, blobBytes: 0 }
    const purge: Purge = { db, present, marks: present.map(() => '?').join(','), reach }

    const named = namedSnapshots(purge)
    const owned = db
      .prepare<string[], { id: number; manifest_hash: string }>(
        `SELECT id, manifest_hash FROM snapshots WHERE session_id IN (${purge.marks})`,
      )
      .all(...present)
    const doomed = owned.filter((s) => !named.has(s.id))
    const candidates = new Set<string>()
    for (const s of doomed) reach(s.manifest_hash, candidates)
    for (const hash of keptBy(purge, 'IN')) candidates.add(hash)

    const dropSnapshot = db.prepare<[number]>('DELETE FROM snapshots WHERE id = ?')
    for (const s of doomed) dropSnapshot.run(s.id)
    const sessions = db.prepare<string[]>(`DELETE FROM sessions WHERE id IN (${purge.marks})`).run(...present)

    const live = candidates.size > 0 ? liveHashes(purge) : new Set<string>()
    const swept = sweepBlobs(db, candidates, live)
    return { sessions: sessions.changes, snapshots: doomed.length, ...swept }
  })
  return run.immediate()
}

/** Adds to `into` every hash a manifest chain reaches: its manifests and their files. */
type Reach = (manifestHash: string, into: Set<string>) => void

/** One purge's inputs: the sessions going (`present`) and their `?` placeholders. */
interface Purge {
  db: SqliteDatabase
  present: readonly string[]
  marks: string
  reach: Reach
}

/** A `Reach` that decodes each manifest once for the whole purge. */
function manifestReach(readManifest: ManifestReader): Reach {
  const decoded = new Map<string, ManifestLinks>()
  return (manifestHash, into) => {
    for (let at: string | undefined = manifestHash; at && !into.has(at);) {
      into.add(at)
      let m = decoded.get(at)
      if (!m) {
        m = readManifest(at)
        if (!m) return
        decoded.set(at, m)
      }
      for (const f of m.files) into.add(f)
      at = m.base
    }
  }
}

/** Snapshots that stay: named by the events or pending restores of the sessions that stay, or a folder's newest. */
function namedSnapshots({ db, present, marks }: Purge): Set<number> {
  const named = new Set<number>()
  const rows = db
    .prepare<string[], string>(
      `SELECT payload FROM events WHERE session_id NOT IN (${marks}) AND payload LIKE '%napshotId%'`,
    )
    .pluck()
    .all(...present)
  for (const payload of rows) {
    const p: unknown = JSON.parse(payload)
    if (!isRecord(p)) continue
    for (const field of SNAPSHOT_FIELDS) {
      const id = p[field]
      if (typeof id === 'number') named.add(id)
    }
  }
  const journals = db
    .prepare<string[], { snapshot_id: number; saved_snapshot_id: number }>(
      `SELECT snapshot_id, saved_snapshot_id FROM restore_journal WHERE session_id NOT IN (${marks})`,
    )
    .all(...present)
  for (const j of journals) named.add(j.snapshot_id).add(j.saved_snapshot_id)
  const newest = db.prepare<[], number>('SELECT MAX(id) FROM snapshots GROUP BY root').pluck().all()
  for (const id of newest) named.add(id)
  return named
}

/** Files kept outside the snapshots (changed by a command under an ignored folder), by hash. */
function keptBy({ db, present, marks }: Purge, which: 'IN' | 'NOT IN'): string[] {
  return db
    .prepare<string[], string>(
      `SELECT payload FROM events WHERE session_id ${which} (${marks}) AND payload LIKE '%"stored":true%'`,
    )
    .pluck()
    .all(...present)
    .flatMap(keptHashes)
}

/** What the remaining snapshots, the stat cache and pending restores still use. */
function liveHashes(purge: Purge): Set<string> {
  const { db, reach } = purge
  const live = new Set<string>()
  for (const hash of keptBy(purge, 'NOT IN')) live.add(hash)
  for (const hash of db.prepare<[], string>('SELECT DISTINCT manifest_hash FROM snapshots').pluck().all())
    reach(hash, live)
  for (const hash of db.prepare<[], string>('SELECT DISTINCT hash FROM stat_cache').pluck().all())
    live.add(hash)
  const pending = db
    .prepare<[], string>(`SELECT plan FROM restore_journal WHERE state = 'pending'`)
    .pluck()
    .all()
  for (const plan of pending) for (const hash of plannedHashes(plan)) live.add(hash)
  return live
}

/** The blobs a pending restore's plan will write (none when the plan cannot be read). */
function plannedHashes(plan: string): string[] {
  const parsed = plannedWritesSchema.safeParse(JSON.parse(plan))
  return parsed.success ? (parsed.data.write ?? []).map((w) => w.hash) : []
}

/** Deletes the candidate blobs nothing live uses; their count and stored bytes. */
function sweepBlobs(
  db: SqliteDatabase,
  candidates: ReadonlySet<string>,
  live: ReadonlySet<string>,
): { blobs: number; blobBytes: number } {
  const sizeOf = db.prepare<[string], number>('SELECT length(data) FROM blobs WHERE hash = ?').pluck()
  const dropBlob = db.prepare<[string]>('DELETE FROM blobs WHERE hash = ?')
  let blobs = 0
  let blobBytes = 0
  for (const hash of candidates) {
    if (live.has(hash)) continue
    const size = sizeOf.get(hash)
    if (size === undefined) continue
    dropBlob.run(hash)
    blobs++
    blobBytes += size
  }
  return { blobs, blobBytes }
}

const plannedWritesSchema = z.object({ write: z.array(z.object({ hash: z.string() })).optional() })
const keptFilesSchema = z.object({
  ignored: z.array(z.object({ sha256: z.string().optional(), stored: z.boolean().optional() })).optional(),
})

/** The hashes a `checkpoint.created` payload names as kept files (`ignored[].stored`). */
function keptHashes(payload: string): string[] {
  const parsed = keptFilesSchema.safeParse(JSON.parse(payload))
  if (!parsed.success) return []
  return (parsed.data.ignored ?? []).flatMap((c) => (c.stored && c.sha256 ? [c.sha256] : []))
}

/**
 * Gives the freed pages back to the file system: checkpoints the log and rebuilds the file.
 * Another process holding the database open can make VACUUM busy; the space is then reused
 * by later writes instead, and the answer says so (false).
 */
export function compactStore(store: Store): boolean {
  try {
    const db = databaseOf(store)
    db.exec('VACUUM')
    db.pragma('wal_checkpoint(TRUNCATE)')
    return true
  } catch {
    return false
  }
}
