import type { TrafficEntry } from './traffic-entry'
import type { Guard } from './open'
import type { SqliteDatabase } from './sqlite'

/** The `traffic` table: the requests and responses a session's provider exchanged. */

export type StoredTraffic = TrafficEntry & { id: number; ts: number }

export interface TrafficRepository {
  append(sessionId: string, entry: TrafficEntry): void
  list(sessionId: string): StoredTraffic[]
  /** Up to `limit` entries after `afterId`, oldest first: a reader that pages (an export). */
  page(sessionId: string, afterId: number, limit: number): StoredTraffic[]
  /** An entry as another store had it, with its own time (a bundle's). */
  insertImported(sessionId: string, entry: ImportedTraffic): void
}

/** A traffic entry from elsewhere: its provider may be one this build does not know. */
export interface ImportedTraffic {
  ts: number
  direction: TrafficEntry['direction']
  provider: string
  url: string
  status?: number | null
  body: string
}

interface TrafficRecord {
  id: number
  ts: number
  /** Written only by `append` and `insertImported`, both typed. */
  direction: TrafficEntry['direction']
  provider: string
  url: string
  status: number | null
  body: string
}

function toEntry(r: TrafficRecord): StoredTraffic {
  return {
    id: r.id,
    ts: r.ts,
    direction: r.direction,
    provider: r.provider as TrafficEntry['provider'],
    url: r.url,
    ...(r.status === null ? {} : { status: r.status }),
    body: r.body,
  }
}

export function createTrafficRepository(db: SqliteDatabase, guard: Guard): TrafficRepository {
  const insert = db.prepare(
    `INSERT INTO traffic (session_id, ts, direction, provider, url, status, body)
     VALUES (@session_id, @ts, @direction, @provider, @url, @status, @body)`,
  )
  // The one query that reads traffic: the whole list is a page without a limit.
  const select = db.prepare<[string, number, number], TrafficRecord>(
    `SELECT id, ts, direction, provider, url, status, body FROM traffic
     WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`,
  )
  const write = (sessionId: string, ts: number, entry: TrafficEntry | ImportedTraffic) =>
    insert.run({
      session_id: sessionId,
      ts,
      direction: entry.direction,
      provider: entry.provider,
      url: entry.url,
      status: entry.status ?? null,
      body: entry.body,
    })
  return {
    append(sessionId, entry) {
      guard(() => write(sessionId, Date.now(), entry))
    },
    list: (sessionId) => select.all(sessionId, 0, -1).map(toEntry),
    page: (sessionId, afterId, limit) => select.all(sessionId, afterId, limit).map(toEntry),
    insertImported(sessionId, entry) {
      write(sessionId, entry.ts, entry)
    },
  }
}
