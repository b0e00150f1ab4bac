import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { errnoCode } from '../../shared/errors'
import { explainStoreError, openedReadOnlyBecause, StoreFailure } from './failures'
import { Database, type SqliteDatabase } from './sqlite'

/** One schema step. Runs inside the migration transaction; never commits itself. */
export type Migration = (db: SqliteDatabase) => void

export interface OpenDatabaseOptions {
  /** Ordered migrations; migration i takes the schema from version i to i + 1. */
  migrations: readonly Migration[]
  /**
   * How long to wait for another connection's lock before failing (ms). Long
   * enough to ride out another process's short transaction, short enough that a
   * second Stepwise on the same file gets a clear error rather than a hang.
   */
  busyTimeoutMs?: number
  /**
   * NORMAL (default): in WAL mode a commit survives a crash of this process; only
   * a power loss or OS crash may roll back the last commits, never corrupt the
   * file. FULL adds an fsync per commit for power-loss durability.
   */
  synchronous?: 'NORMAL' | 'FULL'
}

export class DatabaseLockedError extends Error {
  constructor(readonly file: string) {
    super(
      `The Stepwise database ${file} is locked by another process — probably another Stepwise ` +
        `window, CLI run or server using the same data folder. Close it (or wait for it to finish) ` +
        `and try again, or point this run at a different data folder.`,
    )
    this.name = 'DatabaseLockedError'
  }
}

export class DatabaseTooNewError extends Error {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `The Stepwise database ${file} has schema version ${found}, but this build of Stepwise only ` +
        `knows versions up to ${supported}: it was written by a newer Stepwise. Update Stepwise, or ` +
        `use a different data folder. The file was left untouched.`,
    )
    this.name = 'DatabaseTooNewError'
  }
}

/** True for SQLite's "another connection holds the lock" errors. */
export function isBusyError(err: unknown): boolean {
  const code = errnoCode(err)
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
}

/** Runs `fn`, turning a lock timeout into a `DatabaseLockedError` that names the file. */
export function explainLocks<T>(file: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    if (isBusyError(err)) throw new DatabaseLockedError(file)
    throw err
  }
}

/**
 * Opens (creating if needed) a SQLite file in WAL mode and brings its schema up
 * to date. The migration check takes the write lock at once (BEGIN IMMEDIATE),
 * which doubles as the probe for another process holding the database. A failure
 * is a StoreFailure that names the file, the cause and the fix; a store this user
 * may read but not write (permissions, a read-only or full disk) opens read-only
 * (openReadOnly), so it can still be listed and shown.
 */
export function openDatabase(file: string, opts: OpenDatabaseOptions): SqliteDatabase {
  try {
    return openWritable(file, opts)
  } catch (err) {
    const failure = explainStoreError(err, file)
    if (!(failure instanceof StoreFailure) || !['read-only', 'no-access', 'full'].includes(failure.kind))
      throw failure
    const db = openReadOnly(file, opts.migrations.length)
    if (!db) throw failure
    openedReadOnlyBecause(file, failure)
    return db
  }
}

function openWritable(file: string, opts: OpenDatabaseOptions): SqliteDatabase {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file, { timeout: opts.busyTimeoutMs ?? 3000 })
  try {
    explainLocks(file, () => {
      // A new file only (an existing one keeps its size): snapshot contents are most of a
      // store, and in 16 KB pages a blob spans a quarter of the overflow pages, a first
      // baseline of 72,000 files writing ~45 % faster than in 4 KB ones.
      db.pragma('page_size = 16384')
      // journal_mode=WAL needs a lock when it actually switches modes; a no-op otherwise.
      const mode = db.pragma('journal_mode = WAL', { simple: true })
      if (String(mode).toLowerCase() !== 'wal')
        throw new Error(`Could not put ${file} in WAL mode (got ${mode}).`)
      db.pragma(`synchronous = ${opts.synchronous ?? 'NORMAL'}`)
      db.pragma('foreign_keys = ON')
      // Keep the WAL from staying huge after a big first snapshot.
      db.pragma('journal_size_limit = 67108864')
      // 8 MB of pages (the default is 2 MB): a big snapshot's inserts into the blobs' hash
      // index re-read fewer of the pages they split. 32 MB was no faster (first sessions on the
      // 85,000-file bench tree, eight alternated: median 4.97 s either way) and its pages stayed
      // with the allocator: those sessions peaked at 407–438 MB against 377–415 with 8 MB.
      db.pragma('cache_size = -8192')
      migrate(db, file, opts.migrations)
    })
    return db
  } catch (err) {
    db.close()
    throw err
  }
}

/**
 * A store in a folder this user cannot write (another user's, a read-only disk): read from a
 * private copy, since SQLite cannot read a WAL database without writing its shared-memory file
 * beside it. Undefined when the file cannot be read either, or needs a migration (a write).
 * Every write to it fails with SQLite's "readonly database", which explainStoreError words.
 */
function openReadOnly(file: string, version: number): SqliteDatabase | undefined {
  try {
    fs.accessSync(file, fs.constants.R_OK)
  } catch {
    return undefined
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-readonly-'))
  const copy = path.join(dir, path.basename(file))
  try {
    // The copy is ours to write (copyFile keeps the original's mode, read-only here).
    for (const suffix of ['', '-wal'])
      if (suffix === '' || fs.existsSync(file + suffix)) {
        fs.copyFileSync(file + suffix, copy + suffix)
        fs.chmodSync(copy + suffix, 0o600)
      }
    const writable = new Database(copy)
    writable.pragma('journal_mode = DELETE') // folds the copied WAL in; the copy is ours
    writable.close()
    const db = new Database(copy, { readonly: true, fileMustExist: true })
    if (userVersion(db) !== version) {
      db.close()
      return undefined
    }
    // The copy goes when the process ends; the original is never touched.
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
    return db
  } catch {
    fs.rmSync(dir, { recursive: true, force: true })
    return undefined
  }
}

/** The schema version the file records (`PRAGMA user_version`, 0 for a new file). */
function userVersion(db: SqliteDatabase): number {
  return db.prepare<[], { user_version: number }>('PRAGMA user_version').get()?.user_version ?? 0
}

/**
 * Applies pending migrations one by one, each in its own IMMEDIATE transaction
 * that also bumps `user_version`, so a failing step leaves the file at the last
 * good version. The version is re-read inside each transaction, so two
 * processes racing to migrate cannot apply a step twice.
 */
function migrate(db: SqliteDatabase, file: string, migrations: readonly Migration[]): void {
  const step = db.transaction((): boolean => {
    const current = userVersion(db)
    if (current > migrations.length) throw new DatabaseTooNewError(file, current, migrations.length)
    if (current === migrations.length) return false
    migrations[current](db)
    db.pragma(`user_version = ${current + 1}`)
    return true
  })
  while (step.immediate()) {
    // next step
  }
}
