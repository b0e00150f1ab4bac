import path from 'node:path'
import { explainLocks, openDatabase, type OpenDatabaseOptions } from './db'
import { explainStoreError, StoreFailure, trackOpenStore } from './failures'
import { markDamaged, markOpen, quickCheck, refuseIfMarkedDamaged } from './health'
import { migrations } from './schema'
import type { SqliteDatabase } from './sqlite'

/**
 * Opening the store's file and handling its faults: the damage mark, the quick check after an
 * unclean end, the migrations, and the guard every write runs in (a lock named, damage marked).
 */

export const STORE_FILE_NAME = 'stepwise.db'

export type OpenStoreOptions = Pick<OpenDatabaseOptions, 'busyTimeoutMs' | 'synchronous'> & {
  /** `stepwise doctor` only: open a file marked damaged, to check and repair it. */
  allowDamaged?: boolean
}

/** Runs a write, turning SQLite's errors into ones that say what happened (store/failures.ts). */
export type Guard = <T>(fn: () => T) => T

export interface OpenedFile {
  file: string
  db: SqliteDatabase
  guard: Guard
  /** Closes the connection and lets go of the open mark and the tracking. */
  close(): void
}

/**
 * Opens (creating and migrating if needed) `<dataDir>/stepwise.db`. After an unclean end of an
 * earlier process the file gets SQLite's quick check first (store/health.ts); a file found damaged
 * is refused, with the way out.
 */
export function openStoreFile(dataDir: string, opts: OpenStoreOptions = {}): OpenedFile {
  const file = path.join(dataDir, STORE_FILE_NAME)
  if (!opts.allowDamaged) refuseIfMarkedDamaged(file)
  const mark = markOpen(file)
  let db: SqliteDatabase
  try {
    db = openDatabase(file, { migrations, ...opts })
    if (mark.uncleanEnd && !opts.allowDamaged) refuseDamaged(file, db)
  } catch (err) {
    mark.release()
    throw err
  }
  const untrack = trackOpenStore(file)
  return {
    file,
    db,
    guard: guardFor(file),
    close() {
      untrack()
      if (db.open) db.close()
      mark.release()
    },
  }
}

function guardFor(file: string): Guard {
  return <T>(fn: () => T): T => {
    try {
      return explainLocks(file, fn)
    } catch (err) {
      const explained = explainStoreError(err, file)
      if (explained instanceof StoreFailure && explained.kind === 'damaged')
        markDamaged(file, explained.detail)
      throw explained
    }
  }
}

/** The quick check after an unclean end: a damaged file is marked, closed and refused. */
function refuseDamaged(file: string, db: SqliteDatabase): void {
  const verdict = quickCheck(db)
  if (verdict === 'ok') return
  markDamaged(file, verdict)
  db.close()
  refuseIfMarkedDamaged(file)
  // The mark could not be written (a read-only folder): refuse all the same.
  throw explainStoreError(Object.assign(new Error(verdict), { code: 'SQLITE_CORRUPT' }), file)
}
