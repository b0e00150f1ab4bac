import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { errnoCode, errorMessage } from '../../shared/errors'

/*
 * What a failing store means to the user. SQLite says "database or disk is full", "unable to
 * open database file", "attempt to write a readonly database", "file is not a database": true,
 * but no file named, no cause in words, no way out. Every failure of the store — when it opens
 * and at any write after — is turned into a StoreFailure here, one message per cause, and the
 * CLI, `serve` and the app show that message as it is.
 */

export type StoreFailureKind = 'full' | 'no-access' | 'read-only' | 'damaged' | 'disk'

export class StoreFailure extends Error {
  override name = 'StoreFailure'
  constructor(
    readonly kind: StoreFailureKind,
    readonly file: string,
    message: string,
    /** SQLite's or the OS's own words. */
    readonly detail: string,
  ) {
    super(message)
  }
}

/** The files of the stores open in this process: an error from one names it. */
const openFiles = new Set<string>()

export function trackOpenStore(file: string): () => void {
  openFiles.add(file)
  return () => openFiles.delete(file)
}

/** Stores read from a private copy (db.ts#openReadOnly), with the failure that kept them from opening for writing. */
const readOnlyBecause = new Map<string, StoreFailure>()

export function openedReadOnlyBecause(file: string, failure: StoreFailure): void {
  // It opened after all: what stops a write is that it cannot be written, said as such.
  const asWrite =
    failure.kind === 'no-access'
      ? new StoreFailure(
          'read-only',
          file,
          messageFor('read-only', file, path.dirname(file), failure.detail),
          failure.detail,
        )
      : failure
  readOnlyBecause.set(file, asWrite)
}

const MOVE = 'or point Stepwise at another data folder with --data-dir (or STEPWISE_HOME)'

/**
 * `err` as a StoreFailure when it is a failure of the store file `file` (default: the one store
 * open in this process) — full disk, permissions, a read-only disk, damage, an I/O error — and
 * unchanged otherwise.
 */
export function explainStoreError(err: unknown, file?: string): unknown {
  if (err instanceof StoreFailure) return err
  const code = errnoCode(err)
  if (typeof code !== 'string') return err
  const target = file ?? (openFiles.size === 1 ? [...openFiles][0] : undefined)
  let kind = kindOf(code)
  if (!kind) return err
  // SQLite reports a full disk met while it grows its shared memory or WAL as an I/O error.
  if (kind === 'disk' && target && diskIsFull(path.dirname(target))) kind = 'full'
  const name = target ?? 'the Stepwise database'
  const dir = target ? path.dirname(target) : 'its data folder'
  const detail = errorMessage(err)
  // A write to a store read from a copy fails for the reason it could not be opened for writing.
  const because = target ? readOnlyBecause.get(target) : undefined
  if (kind === 'read-only' && because) return because
  return new StoreFailure(kind, name, messageFor(kind, name, dir, detail), detail)
}

function kindOf(code: string): StoreFailureKind | undefined {
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'full'
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return 'read-only'
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'EACCES' || code === 'EPERM') return 'no-access'
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) return 'damaged'
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'disk'
  return undefined
}

function messageFor(kind: StoreFailureKind, file: string, dir: string, detail: string): string {
  switch (kind) {
    case 'full':
      return (
        `The disk that holds the Stepwise data folder ${dir} is full, so ${path.basename(file)} could not be written ` +
        `(${detail}). Everything saved before this is intact. Free some space on that disk, ${MOVE}.`
      )
    case 'no-access':
      return (
        `Stepwise cannot open its database ${file}: ${accessProblem(dir, file)} (${detail}). ` +
        `Give this user read and write access to ${dir}, ${MOVE}.`
      )
    case 'read-only':
      return (
        `The Stepwise database ${file} cannot be written: ${accessProblem(dir, file)} (${detail}). ` +
        `Sessions can still be listed and shown; to run or change them, give this user write access to ${dir} ` +
        `and the files in it, ${MOVE}.`
      )
    case 'damaged':
      return (
        `The Stepwise database ${file} is damaged (${detail}). Nothing more is written to it. ` +
        `Run \`stepwise doctor\` to check it, keep a copy and recover what can be read into a new file; ` +
        `or move the file aside (Stepwise then starts a new one), ${MOVE}.`
      )
    case 'disk':
      return (
        `Reading or writing the Stepwise database ${file} failed at the disk (${detail}). ` +
        `Check the disk (dmesg, its free space, whether it was unplugged or remounted read-only), then try again.`
      )
  }
}

/** Less than a page or two left for this user on the disk that holds `dir`. */
function diskIsFull(dir: string): boolean {
  try {
    const st = fs.statfsSync(dir)
    return st.bavail * st.bsize < 64 * 1024
  } catch {
    return false
  }
}

/** Why this user cannot write there, in words: who owns it, or that the disk is read-only. */
function accessProblem(dir: string, file: string): string {
  const me = typeof process.getuid === 'function' ? process.getuid() : undefined
  const user = os.userInfo().username
  for (const target of [file, dir]) {
    let st: fs.Stats
    try {
      st = fs.statSync(target)
    } catch {
      continue
    }
    try {
      fs.accessSync(target, fs.constants.W_OK)
    } catch (err) {
      if (errnoCode(err) === 'EROFS') return `${target} is on a read-only file system`
      const owner = me !== undefined && st.uid !== me ? `, which belongs to user id ${st.uid}` : ''
      return `${target} is not writable by ${user}${owner}`
    }
    if (statvfsReadOnly(target)) return `${target} is on a read-only file system`
  }
  if (!fs.existsSync(dir)) return `the folder ${dir} does not exist and could not be created`
  return `${dir} is not readable and writable by ${user}`
}

/** A write test where access(2) says yes but the mount is read-only (root on a ro mount). */
function statvfsReadOnly(target: string): boolean {
  const dir = fs.statSync(target).isDirectory() ? target : path.dirname(target)
  const probe = path.join(dir, `.stepwise-probe-${process.pid}`)
  try {
    fs.writeFileSync(probe, '')
    fs.rmSync(probe, { force: true })
    return false
  } catch (err) {
    return errnoCode(err) === 'EROFS'
  }
}
