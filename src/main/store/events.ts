import { stepwiseEventSchema, type StepwiseEvent } from '../../shared/protocol'
import { PER_STEP_PARSE } from '../../shared/parse-options'
import type { Guard } from './open'
import type { StoredEvent } from './records'
import type { SqliteDatabase } from './sqlite'
import type { Store } from './types'

/** The `events` table: each session's log, `seq` 1, 2, 3, … */

export type { StoredEvent }

export type EventRepository = Pick<Store, 'appendEvent' | 'listEvents'> & {
  /** Up to `limit` stored events after `afterSeq`, in seq order: a reader that pages (an export). */
  page(sessionId: string, afterSeq: number, limit: number): StoredEvent[]
  /** An event as another store had it, with its own seq (a bundle's). */
  insertImported(sessionId: string, event: StoredEvent): void
}

/** A stored event as the session's log reads it: the envelope and its payload's fields. */
export function storedEventOf(sessionId: string, r: StoredEvent): StepwiseEvent {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- every payload was checked by stepwiseEventSchema when appended (appendEvent; imports parse it too), and a schema parse per event on every replay would cost what the log is long
  return { sessionId, seq: r.seq, ts: r.ts, type: r.type, ...JSON.parse(r.payload) } as StepwiseEvent
}

export function createEventRepository(db: SqliteDatabase, guard: Guard): EventRepository {
  const stmt = {
    // MAX: an event copied with its first time (a fork's history) does not make the session look older.
    touch: db.prepare<[number, string]>('UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?'),
    // The next seq is computed inside the INSERT: one indexed MAX() lookup on the primary key.
    append: db.prepare<[{ sessionId: string; ts: number; type: string; payload: string }], { seq: number }>(
      `INSERT INTO events (session_id, seq, ts, type, payload)
       VALUES (@sessionId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = @sessionId),
               @ts, @type, @payload)
       RETURNING seq`,
    ),
    insert: db.prepare<[string, number, number, string, string]>(
      'INSERT INTO events (session_id, seq, ts, type, payload) VALUES (?, ?, ?, ?, ?)',
    ),
    list: db.prepare<[string, number, number], StoredEvent>(
      'SELECT seq, ts, type, payload FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
  }
  const appendTx = db.transaction((sessionId: string, ts: number, type: string, payload: string): number => {
    const touched = stmt.touch.run(ts, sessionId)
    if (touched.changes !== 1) throw new Error(`appendEvent: no session with id ${sessionId}`)
    return stmt.append.get({ sessionId, ts, type, payload })!.seq
  })
  return {
    appendEvent(sessionId, draft, opts = {}) {
      const ts = opts.ts ?? Date.now()
      // Validate before anything is written: a malformed event is a bug in the core,
      // and the log must replay through the same schema the renderer trusts.
      const checked = stepwiseEventSchema.safeParse({ ...draft, sessionId, seq: 0, ts }, PER_STEP_PARSE)
      if (!checked.success) {
        throw new Error(`appendEvent: invalid ${String(draft.type)} event: ${checked.error.message}`)
      }
      const event = checked.data
      const { sessionId: _s, seq: _q, ts: _t, type, ...payload } = event
      event.seq = guard(() => appendTx(sessionId, ts, type, JSON.stringify(payload)))
      return event
    },
    listEvents(sessionId, opts = {}) {
      return stmt.list.all(sessionId, opts.afterSeq ?? -1, -1).map((r) => storedEventOf(sessionId, r))
    },
    page: (sessionId, afterSeq, limit) => stmt.list.all(sessionId, afterSeq, limit),
    insertImported(sessionId, e) {
      stmt.insert.run(sessionId, e.seq, e.ts, e.type, e.payload)
    },
  }
}
