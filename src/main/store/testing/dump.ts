import { databaseOf } from '../handle'
import type { Store } from '../types'

/** Every row a refused import must leave untouched (sessions, events, traffic, snapshots, blobs), for tests. */
export function dumpStore(store: Store): Record<string, unknown[]> {
  const db = databaseOf(store)
  const all = (sql: string) => db.prepare(sql).all()
  return {
    sessions: all('SELECT * FROM sessions ORDER BY id'),
    events: all('SELECT * FROM events ORDER BY session_id, seq'),
    traffic: all('SELECT * FROM traffic ORDER BY id'),
    snapshots: all('SELECT * FROM snapshots ORDER BY id'),
    blobs: all('SELECT hash, size FROM blobs ORDER BY hash'),
  }
}
