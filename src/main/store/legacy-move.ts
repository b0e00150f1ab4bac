import fs from 'node:fs'
import path from 'node:path'
import { STORE_FILE_NAME } from './open'
import { copyFileDurablySync } from './durable-copy'
import { Database, type SqliteDatabase } from './sqlite'
import { errorMessage } from '../../shared/errors'

/**
 * Moving the desktop app's old database into the shared data folder, once.
 *
 * The desktop app used to keep its database in Electron's `userData` folder while the CLI and
 * `stepwise serve` used the OS data folder, so a session run from a terminal never showed in
 * the app. Every host now uses one folder (config/paths.ts; config/data-move.ts decides it for the app); on the app's first start with it,
 * a database found in the old place and none in the new one is moved there:
 * 1. the old database is switched out of WAL mode, which SQLite only allows when no other
 *    connection has it open: a running older Stepwise makes the move wait for a later start;
 * 2. under an exclusive lock (nobody can write meanwhile) it is copied beside the new place,
 *    flushed, checked (integrity_check, and the same number of sessions and events) and
 *    renamed into place;
 * 3. the old file is renamed aside (`stepwise.db.moved`), never deleted.
 * The app's keychain-encrypted key file moves with it.
 */

export type DataMove =
  | { kind: 'none' }
  | { kind: 'moved'; from: string; to: string; message: string }
  /** The old database is in use: this run keeps using the old folder. */
  | { kind: 'busy'; from: string; message: string }
  | { kind: 'failed'; from: string; message: string }

/** Files beside the database that belong to it and move with it. */
const COMPANIONS = ['keys.enc.json']

function sameFolder(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true
  try {
    const sa = fs.statSync(a)
    const sb = fs.statSync(b)
    // A case-insensitive disk (macOS, Windows) sees `stepwise` and `Stepwise` as one folder.
    return sa.dev === sb.dev && sa.ino === sb.ino
  } catch {
    return false
  }
}

function counts(db: SqliteDatabase): string {
  const sessions = db.prepare('SELECT COUNT(*) FROM sessions').pluck().get()
  const events = db.prepare('SELECT COUNT(*) FROM events').pluck().get()
  return `${String(sessions)} sessions, ${String(events)} events`
}

/**
 * Moves `<legacyDir>/stepwise.db` to `<dataDir>/stepwise.db` when only the old one exists.
 * Returns what happened; the caller says it once and, when busy, keeps using the old folder.
 */
export function adoptLegacyDatabase(legacyDir: string, dataDir: string): DataMove {
  const from = path.join(legacyDir, STORE_FILE_NAME)
  const to = path.join(dataDir, STORE_FILE_NAME)
  if (sameFolder(legacyDir, dataDir) || !fs.existsSync(from) || fs.existsSync(to)) return { kind: 'none' }

  let db: SqliteDatabase
  try {
    db = new Database(from, { timeout: 0 })
  } catch (err) {
    return failed(from, err)
  }
  const tmp = `${to}.moving-${process.pid}`
  try {
    try {
      db.pragma('journal_mode = DELETE')
    } catch {
      return {
        kind: 'busy',
        from,
        message: `Your sessions are still in ${legacyDir}: another Stepwise has them open. Quit it and start Stepwise again to move them to ${dataDir}.`,
      }
    }
    if (db.pragma('journal_mode', { simple: true }) !== 'delete')
      return { kind: 'busy', from, message: `Could not take ${from} out of WAL mode; it stays where it is.` }
    db.exec('BEGIN EXCLUSIVE')
    const expected = counts(db)
    fs.mkdirSync(dataDir, { recursive: true })
    copyFileDurablySync(from, tmp)
    const copy = new Database(tmp, { readonly: true })
    try {
      const check = copy.pragma('integrity_check', { simple: true })
      const got = counts(copy)
      if (check !== 'ok' || got !== expected)
        throw new Error(`the copy does not match (${String(check)}; ${got} instead of ${expected})`)
    } finally {
      copy.close()
    }
    fs.renameSync(tmp, to)
    db.exec('ROLLBACK')
    db.close()
    fs.renameSync(from, `${from}.moved`)
    for (const name of COMPANIONS) {
      const file = path.join(legacyDir, name)
      if (fs.existsSync(file) && !fs.existsSync(path.join(dataDir, name)))
        fs.copyFileSync(file, path.join(dataDir, name))
    }
    return {
      kind: 'moved',
      from,
      to,
      message: `Moved your sessions (${expected}) from ${legacyDir} to ${dataDir}, where the stepwise command keeps them too. The old file is kept as ${from}.moved.`,
    }
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    return failed(from, err)
  } finally {
    if (db.open) {
      if (db.inTransaction) db.exec('ROLLBACK')
      db.close()
    }
  }
}

function failed(from: string, err: unknown): DataMove {
  const detail = errorMessage(err)
  return {
    kind: 'failed',
    from,
    message: `Could not move your sessions from ${from} (${detail}); they stay there and this run uses them.`,
  }
}
