import fs from 'node:fs'
import path from 'node:path'
import { errorMessage } from '../../shared/errors'
import { Database, type SqliteDatabase } from './sqlite'
import { copyFileDurably } from './durable-copy'
import { damagedMark } from './health'
import { databaseOf } from './handle'
import { openStore, STORE_FILE_NAME } from './store'
import type { Store } from './types'

/*
 * `stepwise doctor` (docs/cli.md): the way out of a damaged store. `checkStore` runs SQLite's
 * integrity check; `repairStore` keeps the damaged file (and its WAL) beside it, copies every row
 * that can still be read into a new file with the current schema, table by table, skipping what
 * cannot be read, and puts the new file in its place. `backupStore` is the daily copy that bounds
 * what damage can cost (SQLite's online backup, safe while the store is in use).
 */

export interface StoreCheck {
  file: string
  /** 'missing': no store yet in this data folder. */
  verdict: 'ok' | 'damaged' | 'missing'
  problems: string[]
}

export interface TableRecovery {
  table: string
  copied: number
  /** Rows (or runs of rows) that could not be read. */
  unreadable: number
}

export interface StoreRepair {
  file: string
  /** Where the damaged file was kept. */
  keptAs: string
  tables: TableRecovery[]
}

export function storeFile(dataDir: string): string {
  return path.join(dataDir, STORE_FILE_NAME)
}

export function checkStore(dataDir: string): StoreCheck {
  const file = storeFile(dataDir)
  if (!fs.existsSync(file)) return { file, verdict: 'missing', problems: [] }
  let db: SqliteDatabase | undefined
  try {
    db = new Database(file, { fileMustExist: true })
    const rows = db.prepare<[], { integrity_check: string }>('PRAGMA integrity_check(20)').all()
    const problems = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok')
    return { file, verdict: problems.length === 0 ? 'ok' : 'damaged', problems }
  } catch (err) {
    return { file, verdict: 'damaged', problems: [errorMessage(err)] }
  } finally {
    db?.close()
  }
}

/** Rows read per query; a batch that fails is read again row by row. */
const BATCH = 256

export function repairStore(dataDir: string, now = new Date()): StoreRepair {
  const file = storeFile(dataDir)
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  const keptAs = `${file}.damaged-${stamp}`
  const fresh = `${file}.repairing`
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(fresh + suffix, { force: true })
  // The new file gets the current schema from the store itself, in a folder of its own.
  const scratch = fs.mkdtempSync(path.join(dataDir, '.repair-'))
  try {
    openStore(scratch).close()
    fs.renameSync(path.join(scratch, STORE_FILE_NAME), fresh)
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  fs.renameSync(file, keptAs)
  for (const suffix of ['-wal', '-shm'])
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, keptAs + suffix)
  const source = new Database(keptAs, { readonly: true, fileMustExist: true })
  const target = new Database(fresh)
  const tables: TableRecovery[] = []
  try {
    target.pragma('foreign_keys = OFF')
    for (const table of tableNames(target)) tables.push(copyTable(source, target, table))
  } finally {
    source.close()
    target.close()
  }
  fs.renameSync(fresh, file)
  for (const suffix of ['-wal', '-shm']) fs.rmSync(fresh + suffix, { force: true })
  fs.rmSync(damagedMark(file), { force: true })
  return { file, keptAs, tables }
}

function tableNames(db: SqliteDatabase): string[] {
  return db
    .prepare<[], string>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all()
}

/** A row as SQLite hands it back: column name → value. */
type Row = Record<string, unknown>

/** One table's copy: from the damaged file to the fresh one, the columns both have. */
interface TableCopy {
  source: SqliteDatabase
  target: SqliteDatabase
  table: string
  columns: string[]
}

/** The columns of `table` in `db`, in their declared order. */
function columnNames(db: SqliteDatabase, table: string): string[] {
  return db
    .prepare<[], { name: string }>(`PRAGMA table_info(${quote(table)})`)
    .all()
    .map((c) => c.name)
}

/** Copies the rows of `table` that can be read, in rowid order, into the same columns of the new file. */
function copyTable(source: SqliteDatabase, target: SqliteDatabase, table: string): TableRecovery {
  const result: TableRecovery = { table, copied: 0, unreadable: 0 }
  let columns: string[]
  try {
    const theirs = new Set(columnNames(source, table))
    columns = columnNames(target, table).filter((c) => theirs.has(c))
  } catch {
    result.unreadable = 1
    return result
  }
  if (columns.length === 0) return result
  if (!hasRowid(source, table)) return copyInOrder({ source, target, table, columns }, result)
  const list = columns.map(quote).join(', ')
  const batch = source.prepare<[number], Row>(
    `SELECT rowid AS __rowid, ${list} FROM ${quote(table)} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH}`,
  )
  const one = source.prepare<[number], Row>(
    `SELECT rowid AS __rowid, ${list} FROM ${quote(table)} WHERE rowid = ?`,
  )
  const insert = target.prepare(
    `INSERT OR IGNORE INTO ${quote(table)} (rowid, ${list}) VALUES (?, ${columns.map(() => '?').join(', ')})`,
  )
  const put = target.transaction((rows: Row[]) => {
    for (const row of rows) insert.run(row.__rowid, ...columns.map((c) => row[c]))
  })
  const maxRowid = readMaxRowid(source, table)
  let after = -Infinity
  while (after < maxRowid) {
    let rows: Row[]
    try {
      rows = batch.all(after === -Infinity ? Number.MIN_SAFE_INTEGER : after)
    } catch {
      // A damaged page in this run: read the next rows one at a time, past the damage.
      rows = []
      const start = after === -Infinity ? 1 : after + 1
      for (let id = start; id <= Math.min(maxRowid, start + BATCH - 1); id++) {
        try {
          const row = one.get(id)
          if (row) rows.push(row)
        } catch {
          result.unreadable++
        }
      }
      after = Math.min(maxRowid, start + BATCH - 1)
      put(rows)
      result.copied += rows.length
      continue
    }
    if (rows.length === 0) break
    put(rows)
    result.copied += rows.length
    after = Number(rows.at(-1)!.__rowid)
  }
  return result
}

function hasRowid(db: SqliteDatabase, table: string): boolean {
  try {
    db.prepare(`SELECT rowid FROM ${quote(table)} LIMIT 0`).all()
    return true
  } catch {
    return false
  }
}

/** A table WITHOUT ROWID: read in its key order until the first unreadable page. */
function copyInOrder({ source, target, table, columns }: TableCopy, result: TableRecovery): TableRecovery {
  const list = columns.map(quote).join(', ')
  const insert = target.prepare(
    `INSERT OR IGNORE INTO ${quote(table)} (${list}) VALUES (${columns.map(() => '?').join(', ')})`,
  )
  const rows: Row[] = []
  try {
    for (const row of source.prepare<[], Row>(`SELECT ${list} FROM ${quote(table)}`).iterate()) rows.push(row)
  } catch {
    result.unreadable++ // the rows before the damage are kept
  }
  target.transaction(() => {
    for (const row of rows) insert.run(...columns.map((c) => row[c]))
  })()
  result.copied += rows.length
  return result
}

/** The highest rowid, from the table's last page (it may be readable when others are not). */
function readMaxRowid(db: SqliteDatabase, table: string): number {
  try {
    const row = db.prepare<[], { m: number | null }>(`SELECT max(rowid) AS m FROM ${quote(table)}`).get()
    return row?.m ?? 0
  } catch {
    return 0
  }
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/**
 * Copies the store's file as it stands: ~75 ms for a 131 MB store (a big tree's first baseline)
 * where SQLite's page-by-page backup API took ~260 ms alone and ~700 ms at a session's busy exit.
 * The file alone is the whole database, and stays so through the copy, when the WAL has been
 * checkpointed and truncated and a read transaction begins on the empty WAL: such a reader reads
 * the file alone, and no connection's checkpoint writes the file until it ends (SQLite takes WAL
 * read lock 0 exclusively to backfill). That reader is a connection of its own, so the store's
 * goes on reading and writing (into the WAL) while the file is copied off this thread. False,
 * having copied nothing, when that cannot be had — a reader elsewhere kept the checkpoint from
 * finishing (it never waits), a write came in between — and the caller uses the backup API.
 */
async function copyQuietFile(file: string, to: string): Promise<boolean> {
  let db: SqliteDatabase
  try {
    db = new Database(file, { fileMustExist: true, timeout: 0 })
  } catch {
    return false
  }
  try {
    const done = db.prepare<[], { busy: number; log: number }>('PRAGMA wal_checkpoint(TRUNCATE)').get()
    if (done?.busy !== 0 || done.log !== 0) return false
    db.exec('BEGIN')
    db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() // begins the read
    if ((fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) return false
    await copyFileDurably(file, to)
    return true
  } catch {
    fs.rmSync(to, { force: true })
    return false // whatever stopped the copy, the online backup can still make one
  } finally {
    if (db.inTransaction) db.exec('COMMIT')
    db.close()
  }
}

/** How many daily backups to keep (`<dataDir>/backups/stepwise-YYYY-MM-DD.db`). */
export const BACKUPS_KEPT = 2
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Copies the open store to `<dataDir>/backups/` when the newest copy there is a day old or more
 * (or there is none), and keeps the last BACKUPS_KEPT. Resolves to the new copy's path, or
 * undefined when none was due. The copy is written under a temporary name and renamed, so a
 * backup cut short never replaces a good one.
 */
export async function backupStore(
  store: Store,
  dataDir: string,
  now = Date.now(),
): Promise<string | undefined> {
  const dir = path.join(dataDir, 'backups')
  fs.mkdirSync(dir, { recursive: true })
  const existing = fs
    .readdirSync(dir)
    .filter((n) => /^stepwise-\d{4}-\d{2}-\d{2}\.db$/.test(n))
    .sort()
  const newest = existing.at(-1)
  if (newest && now - fs.statSync(path.join(dir, newest)).mtimeMs < DAY_MS) return undefined
  const name = `stepwise-${new Date(now).toISOString().slice(0, 10)}.db`
  const tmp = path.join(dir, `${name}.partial`)
  fs.rmSync(tmp, { force: true })
  if (!(await copyQuietFile(path.join(dataDir, STORE_FILE_NAME), tmp))) await databaseOf(store).backup(tmp)
  fs.renameSync(tmp, path.join(dir, name))
  const kept = [...new Set([...existing, name])].sort()
  for (const old of kept.slice(0, Math.max(0, kept.length - BACKUPS_KEPT)))
    fs.rmSync(path.join(dir, old), { force: true })
  return path.join(dir, name)
}
