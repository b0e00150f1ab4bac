import { randomInt } from 'node:crypto'
import { sessionStatusSchema } from '../../shared/protocol'
import { HEARTBEAT_MS, HOST, ownerGone, type Ownership } from './liveness'
import type { Guard } from './open'
import type { SqliteDatabase } from './sqlite'
import type { ImportedSession, SessionRow, SessionStatus } from './records'
import type { Store } from './types'

export type { ImportedSession }

/** The `sessions` table: rows, their status and who runs them (liveness.ts), soft deletion. */

/**
 * A short id that sorts by creation time: 8 base36 chars of milliseconds (good
 * until 2059) followed by 5 random base36 chars.
 */
export function newSessionId(now = Date.now()): string {
  return (
    now.toString(36).padStart(8, '0') +
    randomInt(36 ** 5)
      .toString(36)
      .padStart(5, '0')
  )
}

interface SessionRecord extends Partial<Ownership> {
  id: string
  repo: string
  title: string
  provider: string
  model: string
  status: string
  created_at: number
  updated_at: number
  parent_id: string | null
  fork_seq: number | null
  deleted_at?: number | null
}

const SESSION_COLUMNS =
  'id, repo, title, provider, model, status, created_at, updated_at, parent_id, fork_seq'
const SESSION_READ = `${SESSION_COLUMNS}, deleted_at, owner_host, owner_pid, heartbeat_at`

/**
 * A stored status this version knows; an imported session may carry one from a newer version,
 * which reads as `idle` (nothing runs it here).
 */
function storedStatus(status: string): SessionStatus {
  const known = sessionStatusSchema.safeParse(status)
  return known.success ? known.data : 'idle'
}

/**
 * The row as readers see it: `running` only while a process runs it (liveness.ts), else
 * `interrupted`. `runningHere`: the sessions this process is running a turn for.
 */
function toSessionRow(r: SessionRecord, runningHere: ReadonlySet<string>): SessionRow {
  const stored = storedStatus(r.status)
  const ownership: Ownership = {
    owner_host: r.owner_host ?? null,
    owner_pid: r.owner_pid ?? null,
    heartbeat_at: r.heartbeat_at ?? null,
  }
  const status = stored === 'running' && ownerGone(r.id, ownership, runningHere) ? 'interrupted' : stored
  return {
    id: r.id,
    repo: r.repo,
    title: r.title,
    provider: r.provider,
    model: r.model,
    status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    parentId: r.parent_id,
    forkSeq: r.fork_seq,
    deletedAt: r.deleted_at ?? null,
  }
}

function toRecord(row: ImportedSession): SessionRecord {
  return {
    id: row.id,
    repo: row.repo,
    title: row.title,
    provider: row.provider,
    model: row.model,
    status: row.status,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    parent_id: row.parentId,
    fork_seq: row.forkSeq,
  }
}

function sessionStatements(db: SqliteDatabase) {
  return {
    insert: db.prepare<[SessionRecord]>(
      `INSERT INTO sessions (${SESSION_COLUMNS})
       VALUES (@id, @repo, @title, @provider, @model, @status, @created_at, @updated_at, @parent_id, @fork_seq)`,
    ),
    get: db.prepare<[string], SessionRecord>(`SELECT ${SESSION_READ} FROM sessions WHERE id = ?`),
    findByPrefix: db.prepare<[number, string], SessionRecord>(
      `SELECT ${SESSION_READ} FROM sessions
       WHERE substr(id, 1, ?) = ? AND deleted_at IS NULL ORDER BY id LIMIT 2`,
    ),
    list: db.prepare<[number], SessionRecord>(
      `SELECT ${SESSION_READ} FROM sessions WHERE deleted_at IS NULL
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    listByRepo: db.prepare<[string, number], SessionRecord>(
      `SELECT ${SESSION_READ} FROM sessions WHERE repo = ? AND deleted_at IS NULL
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    markDeleted: db.prepare<[number, string]>(
      'UPDATE sessions SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL',
    ),
    restore: db.prepare<[string]>(
      'UPDATE sessions SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL',
    ),
    listDeleted: db.prepare<[], { id: string; deleted_at: number }>(
      'SELECT id, deleted_at FROM sessions WHERE deleted_at IS NOT NULL ORDER BY deleted_at',
    ),
    setStatus: db.prepare<[string, number, string]>(
      `UPDATE sessions SET status = ?, updated_at = ?, owner_host = NULL, owner_pid = NULL, heartbeat_at = NULL
       WHERE id = ?`,
    ),
    setRunning: db.prepare<[number, string, number, number, string]>(
      `UPDATE sessions SET status = 'running', updated_at = ?, owner_host = ?, owner_pid = ?, heartbeat_at = ?
       WHERE id = ?`,
    ),
    heartbeat: db.prepare<[number, string, number, string]>(
      `UPDATE sessions SET heartbeat_at = ? WHERE id = ? AND owner_pid = ? AND owner_host = ? AND status = 'running'`,
    ),
    setTitle: db.prepare<[string, number, string]>(
      'UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?',
    ),
  }
}

/** The sessions this process runs a turn for, and the heartbeat that says so (liveness.ts). */
function createOwnership(beat: (id: string, now: number) => void) {
  const runningHere = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  const tick = (): void => {
    const now = Date.now()
    for (const id of runningHere) {
      try {
        beat(id, now)
      } catch {
        // A full disk or a lock: the next beat tries again; a reader sees the heartbeat age.
      }
    }
  }
  const stopIfIdle = (): void => {
    if (runningHere.size > 0 || !timer) return
    clearInterval(timer)
    timer = undefined
  }
  return {
    runningHere: runningHere as ReadonlySet<string>,
    own(id: string): void {
      runningHere.add(id)
      if (timer) return
      timer = setInterval(tick, HEARTBEAT_MS)
      timer.unref()
    },
    release(id: string): void {
      runningHere.delete(id)
      stopIfIdle()
    },
    releaseAll(): void {
      runningHere.clear()
      stopIfIdle()
    },
  }
}

export type SessionRepository = Pick<
  Store,
  | 'createSession'
  | 'getSession'
  | 'findSession'
  | 'listSessions'
  | 'setSessionStatus'
  | 'setSessionTitle'
  | 'markSessionsDeleted'
  | 'restoreSessions'
  | 'listDeletedSessions'
> & {
  /** A row as another store had it (a bundle's), under the id given; no ownership. */
  insertImported(row: ImportedSession): void
  /** Stops the heartbeat: the store is closing. */
  close(): void
}

export function createSessionRepository(db: SqliteDatabase, guard: Guard): SessionRepository {
  const stmt = sessionStatements(db)
  const ownership = createOwnership((id, now) => stmt.heartbeat.run(now, id, process.pid, HOST))
  const row = (r: SessionRecord): SessionRow => toSessionRow(r, ownership.runningHere)
  return {
    createSession(input) {
      const now = Date.now()
      const record: SessionRecord = {
        id: input.id ?? newSessionId(now),
        repo: input.repo,
        title: input.title,
        provider: input.provider,
        model: input.model,
        // Nothing runs yet: a new chat or fork is idle until a turn starts (setSessionStatus).
        status: 'idle',
        created_at: now,
        updated_at: now,
        parent_id: input.parentId ?? null,
        fork_seq: input.forkSeq ?? null,
      }
      guard(() => stmt.insert.run(record))
      return row(record)
    },
    insertImported(imported) {
      stmt.insert.run(toRecord(imported))
    },
    getSession(id) {
      const r = stmt.get.get(id)
      return r && row(r)
    },
    findSession(idOrPrefix) {
      if (!idOrPrefix) return undefined
      const exact = stmt.get.get(idOrPrefix)
      if (exact) return exact.deleted_at == null ? row(exact) : undefined
      const rows = stmt.findByPrefix.all(idOrPrefix.length, idOrPrefix)
      return rows.length === 1 ? row(rows[0]) : undefined
    },
    listSessions(opts = {}) {
      const limit = opts.limit ?? -1
      const rows = opts.repo === undefined ? stmt.list.all(limit) : stmt.listByRepo.all(opts.repo, limit)
      return rows.map(row)
    },
    setSessionStatus(id, status) {
      const now = Date.now()
      if (status !== 'running') {
        // Forgotten first: if the write fails (a full disk), the row still reads as interrupted.
        ownership.release(id)
        guard(() => stmt.setStatus.run(status, now, id))
        return
      }
      guard(() => stmt.setRunning.run(now, HOST, process.pid, now, id))
      ownership.own(id)
    },
    setSessionTitle(id, title) {
      guard(() => stmt.setTitle.run(title, Date.now(), id))
    },
    markSessionsDeleted(ids, at = Date.now()) {
      return guard(() =>
        db.transaction(() => ids.filter((id) => stmt.markDeleted.run(at, id).changes === 1))(),
      )
    },
    restoreSessions(ids) {
      return guard(() => db.transaction(() => ids.filter((id) => stmt.restore.run(id).changes === 1))())
    },
    listDeletedSessions() {
      return stmt.listDeleted.all().map((r) => ({ id: r.id, deletedAt: r.deleted_at }))
    },
    close() {
      ownership.releaseAll()
    },
  }
}
