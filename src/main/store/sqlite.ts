import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

/**
 * Loads the SQLite binding that matches the running runtime. Two builds ship:
 * `better-sqlite3` (compiled for Node 20's ABI, used by tests and the CLI) and
 * `better-sqlite3-napi` (N-API 10 prebuilds, for Electron / Node ≥ 22). The
 * N-API 10 build crashes the process on Node 20, so it is only ever required
 * when the runtime reports N-API ≥ 10.
 */
export type SqliteDatabase = BetterSqlite3.Database
export type SqliteStatement<P extends unknown[] = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>
export type SqliteDatabaseConstructor = typeof BetterSqlite3

// Not named `require`: the bundler adds a `require` shim of its own to ESM chunks.
const nodeRequire = createRequire(import.meta.url)

export const bindingName: 'better-sqlite3' | 'better-sqlite3-napi' =
  Number(process.versions.napi) >= 10 ? 'better-sqlite3-napi' : 'better-sqlite3'

export const Database: SqliteDatabaseConstructor = nodeRequire(bindingName)
