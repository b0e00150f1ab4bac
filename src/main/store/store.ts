import { randomInt } from 'node:crypto'
import path from 'node:path'
import { stepwiseEventSchema, type StepwiseEvent } from '../../shared/protocol'
import type { TrafficEntry } from './traffic-entry'
import { createApprovalStore } from './approval-rules'
import { explainLocks, openDatabase, type OpenDatabaseOptions } from './db'
import { HEARTBEAT_MS, HOST, ownerGone, type Ownership } from './liveness'
import { explainStoreError, StoreFailure, trackOpenStore } from './failures'
import { markDamaged, markOpen, quickCheck, refuseIfMarkedDamaged } from './health'
import { migrations } from './schema'
import type { SessionRow, SessionStatus, Store } from './types'

export const STORE_FILE_NAME = 'stepwise.db'

export type OpenStoreOptions = Pick<OpenDatabaseOptions, 'busyTimeoutMs' | 'synchronous'> & {
  /** `stepwise doctor` only: open a file marked damaged, to check and repair it. */
  allowDamaged?: boolean
}

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
 * The row as readers see it: `running` only while a process runs it (liveness.ts), else
 * `interrupted`. `runningHere`: the sessions this process is running a turn for.
 */
function toSessionRow(r: SessionRecord, runningHere: ReadonlySet<string>): SessionRow {
  const stored = r.status as SessionStatus
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

/**
 * Opens (creating and migrating if needed) `<dataDir>/stepwise.db`. After an unclean end of an
 * earlier process the file gets SQLite's quick check first (store/health.ts); a file found damaged
 * is refused, with the way out.
 */
export function openStore(dataDir: string, opts: OpenStoreOptions = {}): Store {
  const file = path.join(dataDir, STORE_FILE_NAME)
  if (!opts.allowDamaged) refuseIfMarkedDamaged(file)
  const mark = markOpen(file)
  let db: ReturnType<typeof openDatabase>
  try {
    db = openDatabase(file, { migrations, ...opts })
    if (mark.uncleanEnd && !opts.allowDamaged) refuseDamaged(file, db)
  } catch (err) {
    mark.release()
    throw err
  }
  const untrack = trackOpenStore(file)
  const guard = <T>(fn: () => T): T => {
    try {
      return explainLocks(file, fn)
    } catch (err) {
      const explained = explainStoreError(err, file)
      if (explained instanceof StoreFailure && explained.kind === 'damaged')
        markDamaged(file, explained.detail)
      throw explained
    }
  }

  const stmt = {
    insertSession: db.prepare(
      `INSERT INTO sessions (${SESSION_COLUMNS})
       VALUES (@id, @repo, @title, @provider, @model, @status, @created_at, @updated_at, @parent_id, @fork_seq)`,
    ),
    getSession: db.prepare<[string], SessionRecord>(`SELECT ${SESSION_READ} FROM sessions WHERE id = ?`),
    findByPrefix: db.prepare<[number, string], SessionRecord>(
      `SELECT ${SESSION_READ} FROM sessions
       WHERE substr(id, 1, ?) = ? AND deleted_at IS NULL ORDER BY id LIMIT 2`,
    ),
    listSessions: db.prepare<[number], SessionRecord>(
      `SELECT ${SESSION_READ} FROM sessions WHERE deleted_at IS NULL
       ORDER BY updated_at DESC, id DESC LIMIT ?`,
    ),
    listSessionsByRepo: db.prepare<[string, number], SessionRecord>(
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
    // MAX: an event copied with its first time (a fork's history) does not make the session look older.
    touch: db.prepare<[number, string]>('UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?'),
    // The next seq is computed inside the INSERT: one indexed MAX() lookup on the primary key.
    insertEvent: db.prepare<
      [{ sessionId: string; ts: number; type: string; payload: string }],
      { seq: number }
    >(
      `INSERT INTO events (session_id, seq, ts, type, payload)
       VALUES (@sessionId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = @sessionId),
               @ts, @type, @payload)
       RETURNING seq`,
    ),
    listEvents: db.prepare<[string, number], { seq: number; ts: number; type: string; payload: string }>(
      'SELECT seq, ts, type, payload FROM events WHERE session_id = ? AND seq > ? ORDER BY seq',
    ),
    insertTraffic: db.prepare(
      `INSERT INTO traffic (session_id, ts, direction, provider, url, status, body)
       VALUES (@session_id, @ts, @direction, @provider, @url, @status, @body)`,
    ),
    listTraffic: db.prepare<
      [string],
      {
        id: number
        ts: number
        direction: string
        provider: string
        url: string
        status: number | null
        body: string
      }
    >('SELECT id, ts, direction, provider, url, status, body FROM traffic WHERE session_id = ? ORDER BY id'),
    getSetting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?'),
    setSetting: db.prepare<[string, string]>(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    ),
  }

  // The sessions this process runs a turn for, and the heartbeat that says so (liveness.ts).
  const runningHere = new Set<string>()
  let heartbeatTimer: NodeJS.Timeout | undefined
  const beat = (): void => {
    const now = Date.now()
    for (const id of runningHere) {
      try {
        stmt.heartbeat.run(now, id, process.pid, HOST)
      } catch {
        // A full disk or a lock: the next beat tries again; a reader sees the heartbeat age.
      }
    }
  }
  const row = (r: SessionRecord): SessionRow => toSessionRow(r, runningHere)

  const appendEventTx = db.transaction(
    (sessionId: string, ts: number, type: string, payload: string): number => {
      const touched = stmt.touch.run(ts, sessionId)
      if (touched.changes !== 1) throw new Error(`appendEvent: no session with id ${sessionId}`)
      return stmt.insertEvent.get({ sessionId, ts, type, payload })!.seq
    },
  )

  return {
    path: file,
    db,

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
      guard(() => stmt.insertSession.run(record))
      return row(record)
    },

    getSession(id) {
      const r = stmt.getSession.get(id)
      return r && row(r)
    },

    findSession(idOrPrefix) {
      if (!idOrPrefix) return undefined
      const exact = stmt.getSession.get(idOrPrefix)
      if (exact) return exact.deleted_at == null ? row(exact) : undefined
      const rows = stmt.findByPrefix.all(idOrPrefix.length, idOrPrefix)
      return rows.length === 1 ? row(rows[0]) : undefined
    },

    listSessions(opts = {}) {
      const limit = opts.limit ?? -1
      const rows =
        opts.repo === undefined ? stmt.listSessions.all(limit) : stmt.listSessionsByRepo.all(opts.repo, limit)
      return rows.map(row)
    },

    setSessionStatus(id, status) {
      const now = Date.now()
      if (status !== 'running') {
        // Forgotten first: if the write fails (a full disk), the row still reads as interrupted.
        runningHere.delete(id)
        if (runningHere.size === 0 && heartbeatTimer) {
          clearInterval(heartbeatTimer)
          heartbeatTimer = undefined
        }
        guard(() => stmt.setStatus.run(status, now, id))
        return
      }
      guard(() => stmt.setRunning.run(now, HOST, process.pid, now, id))
      runningHere.add(id)
      if (!heartbeatTimer) {
        heartbeatTimer = setInterval(beat, HEARTBEAT_MS)
        heartbeatTimer.unref()
      }
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

    appendEvent(sessionId, draft, opts = {}) {
      const ts = opts.ts ?? Date.now()
      // Validate before anything is written: a malformed event is a bug in the core,
      // and the log must replay through the same schema the renderer trusts.
      const checked = stepwiseEventSchema.safeParse({ ...draft, sessionId, seq: 0, ts })
      if (!checked.success) {
        throw new Error(`appendEvent: invalid ${String(draft.type)} event: ${checked.error.message}`)
      }
      const event = checked.data
      const { sessionId: _s, seq: _q, ts: _t, type, ...payload } = event
      event.seq = guard(() => appendEventTx(sessionId, ts, type, JSON.stringify(payload)))
      return event
    },

    listEvents(sessionId, opts = {}) {
      return stmt.listEvents
        .all(sessionId, opts.afterSeq ?? -1)
        .map(
          (r) =>
            ({ sessionId, seq: r.seq, ts: r.ts, type: r.type, ...JSON.parse(r.payload) }) as StepwiseEvent,
        )
    },

    appendTraffic(sessionId, entry: TrafficEntry) {
      guard(() =>
        stmt.insertTraffic.run({
          session_id: sessionId,
          ts: Date.now(),
          direction: entry.direction,
          provider: entry.provider,
          url: entry.url,
          status: entry.status ?? null,
          body: entry.body,
        }),
      )
    },

    listTraffic(sessionId) {
      return stmt.listTraffic.all(sessionId).map((r) => ({
        id: r.id,
        ts: r.ts,
        direction: r.direction as TrafficEntry['direction'],
        provider: r.provider as TrafficEntry['provider'],
        url: r.url,
        ...(r.status === null ? {} : { status: r.status }),
        body: r.body,
      }))
    },

    approvals: createApprovalStore(db),

    getSetting(key) {
      return stmt.getSetting.get(key)?.value
    },

    setSetting(key, value) {
      guard(() => stmt.setSetting.run(key, value))
    },

    /** False when the store opened read-only (a folder this user cannot write): writes fail. */
    writable: !db.readonly,

    close() {
      if (heartbeatTimer) clearInterval(heartbeatTimer)
      heartbeatTimer = undefined
      runningHere.clear()
      untrack()
      if (db.open) db.close()
      mark.release()
    },
  }
}

/** The quick check after an unclean end: a damaged file is marked, closed and refused. */
function refuseDamaged(file: string, db: ReturnType<typeof openDatabase>): void {
  const verdict = quickCheck(db)
  if (verdict === 'ok') return
  markDamaged(file, verdict)
  db.close()
  refuseIfMarkedDamaged(file)
  // The mark could not be written (a read-only folder): refuse all the same.
  throw explainStoreError(Object.assign(new Error(verdict), { code: 'SQLITE_CORRUPT' }), file)
}
