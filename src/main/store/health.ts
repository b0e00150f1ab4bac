import fs from 'node:fs'
import path from 'node:path'
import { errorMessage } from '../../shared/errors'
import { StoreFailure } from './failures'
import type { SqliteDatabase } from './sqlite'
import { pidAlive } from './liveness'

/*
 * Whether a store file can be trusted. A process that opens the store leaves a mark
 * (`<file>.open/<pid>`) that it takes away when it closes; a mark whose process is gone is an
 * unclean end (kill -9, a crash, power), after which the file gets SQLite's quick check before
 * anything reads or writes it. A file found damaged — then, or by any read later — is marked
 * `<file>.damaged`, and no process writes to it again until `stepwise doctor` has repaired it.
 */

export function damagedMark(file: string): string {
  return `${file}.damaged`
}

/** Refuses a file marked damaged (StoreFailure), unless the caller is the repair itself. */
export function refuseIfMarkedDamaged(file: string): void {
  let detail: string
  try {
    detail = fs.readFileSync(damagedMark(file), 'utf8').trim()
  } catch {
    return
  }
  throw new StoreFailure(
    'damaged',
    file,
    `The Stepwise database ${file} was found damaged (${detail}), so nothing more is written to it. ` +
      'Run `stepwise doctor` to check it, keep a copy and recover what can be read into a new file.',
    detail,
  )
}

export function markDamaged(file: string, detail: string): void {
  try {
    fs.writeFileSync(damagedMark(file), `${detail}\n`)
  } catch {
    // A folder we cannot write: the next open finds the damage again by itself.
  }
}

/**
 * Leaves this process's mark and says whether an earlier process ended without taking its own
 * away. Returns the function that takes this process's mark away (on close, and at exit).
 */
export function markOpen(file: string): { uncleanEnd: boolean; release: () => void } {
  const dir = `${file}.open`
  let uncleanEnd = false
  let marks: string[] = []
  try {
    marks = fs.readdirSync(dir)
  } catch {
    // No marks yet.
  }
  for (const name of marks) {
    const pid = Number(name)
    if (Number.isInteger(pid) && pid !== process.pid && pidAlive(pid)) continue
    if (pid !== process.pid) uncleanEnd = true
    try {
      fs.rmSync(path.join(dir, name), { force: true })
    } catch {
      // A read-only folder: the mark stays, and so does the check at each open.
    }
  }
  const mine = path.join(dir, String(process.pid))
  try {
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(mine, '')
  } catch {
    return { uncleanEnd, release: () => {} } // a read-only folder: no mark, nothing to release
  }
  let released = false
  const release = () => {
    if (released) return
    released = true
    process.off('exit', release)
    fs.rmSync(mine, { force: true })
  }
  process.on('exit', release)
  return { uncleanEnd, release }
}

/** SQLite's quick check (the b-trees and their pages, not the indexes' contents): 'ok' or why not. */
export function quickCheck(db: SqliteDatabase): string {
  try {
    const rows = db.prepare<[], { quick_check: string }>('PRAGMA quick_check(5)').all()
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok')
    return problems.length === 0 ? 'ok' : problems.join('; ')
  } catch (err) {
    return errorMessage(err)
  }
}
