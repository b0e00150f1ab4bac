import { z } from 'zod'
import type { SqliteDatabase } from './sqlite'

/**
 * The `restore_journal` table: a restore's plan, written before its first file changes and
 * marked done with the event that records it (timetravel/restore-apply.ts).
 */

export type RestoreKind = 'undo' | 'rewind' | 'fork'

const restorePlanSchema = z.object({
  /** Files to (re)write: their content is the blob `hash`, their permissions `mode`. */
  write: z.array(z.object({ path: z.string(), hash: z.string(), mode: z.number() })),
  delete: z.array(z.string()),
})
export type RestorePlan = z.infer<typeof restorePlanSchema>

/** A stored plan (JSON in `restore_journal.plan`), checked: it steers writes and deletes. */
export function parseRestorePlan(text: string): RestorePlan {
  return restorePlanSchema.parse(JSON.parse(text))
}

export interface JournalEntry {
  id: number
  sessionId: string
  root: string
  kind: RestoreKind
  snapshotId: number
  savedSnapshotId: number
  toSeq: number | undefined
  plan: RestorePlan
}

export interface RestoreJournal {
  insert(entry: Omit<JournalEntry, 'id'>): number
  /** Journals not marked done, oldest first; `root` limits them to one project. */
  pending(root?: string): JournalEntry[]
  /** Runs `record` (the event saying so) and marks the journal done, in one transaction. */
  finish<T>(id: number, record: () => T): T
}

interface JournalRow {
  id: number
  session_id: string
  root: string
  /** Written only by `insert`, typed. */
  kind: RestoreKind
  snapshot_id: number
  saved_snapshot_id: number
  to_seq: number | null
  plan: string
}

function toEntry(r: JournalRow): JournalEntry {
  return {
    id: r.id,
    sessionId: r.session_id,
    root: r.root,
    kind: r.kind,
    snapshotId: r.snapshot_id,
    savedSnapshotId: r.saved_snapshot_id,
    toSeq: r.to_seq ?? undefined,
    plan: parseRestorePlan(r.plan),
  }
}

export function createRestoreJournal(db: SqliteDatabase): RestoreJournal {
  const insert = db.prepare<[string, string, string, number, number, number | null, string, number]>(
    `INSERT INTO restore_journal
       (session_id, root, kind, snapshot_id, saved_snapshot_id, to_seq, plan, state, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
  )
  const pendingAll = db.prepare<[], JournalRow>(
    "SELECT * FROM restore_journal WHERE state = 'pending' ORDER BY id",
  )
  const pendingIn = db.prepare<[string], JournalRow>(
    "SELECT * FROM restore_journal WHERE state = 'pending' AND root = ? ORDER BY id",
  )
  const done = db.prepare<[number, number]>(
    "UPDATE restore_journal SET state = 'done', finished_at = ? WHERE id = ?",
  )
  return {
    insert(e) {
      const r = insert.run(
        e.sessionId,
        e.root,
        e.kind,
        e.snapshotId,
        e.savedSnapshotId,
        e.toSeq ?? null,
        JSON.stringify(e.plan),
        Date.now(),
      )
      return Number(r.lastInsertRowid)
    },
    pending: (root) => (root === undefined ? pendingAll.all() : pendingIn.all(root)).map(toEntry),
    finish<T>(id: number, record: () => T): T {
      return db.transaction(() => {
        const result = record()
        done.run(Date.now(), id)
        return result
      })()
    },
  }
}
