import type { SqliteDatabase } from './sqlite'
import type { Store } from './types'

/**
 * The store's connection, kept out of its public type: the store's own files (doctor, purge,
 * the repositories) reach it here. Outside store/ only the code index and the snapshotter
 * still take it, until their tables' SQL lives in store/ too (test/architecture.test.ts lists
 * them in PENDING_STORE_MOVES).
 */
const connections = new WeakMap<Store, SqliteDatabase>()

export function bindDatabase(store: Store, db: SqliteDatabase): void {
  connections.set(store, db)
}

export function databaseOf(store: Store): SqliteDatabase {
  const db = connections.get(store)
  if (!db) throw new Error('databaseOf: not a store opened by openStore')
  return db
}
