import fs from 'node:fs'
import { errnoCode } from '../../shared/errors'
import type { SnapshotFile } from '../store/types'
import { secretContentKind } from '../containment/secret-content'
import { sha256, type BlobStore } from './blobs'
import { SECRET_SKIP } from './readThreads'
import type { SnapshotChanges } from './manifest'
import { RACY_MARGIN_MS, type FileStat, type StatCache } from './statCache'

/**
 * Capturing files into one snapshot: each file's hash comes from the stat cache
 * when its stat proves it unchanged, else from reading it (and storing its
 * content once). What differs from the previous snapshot is gathered on the way:
 * the records a delta manifest stores and the changes a checkpoint reports.
 * Call `file` inside a transaction (it writes blobs).
 */

export interface CaptureSetup {
  root: string
  blobs: BlobStore
  cache: StatCache
  /** The previous snapshot's files by path (empty for the first). */
  prev: ReadonlyMap<string, SnapshotFile>
  /** Date.now() when the snapshot started: decides which files are racily clean. */
  startedAt: number
  maxFileBytes: number
}

/**
 * A file read elsewhere (readThreads.ts), whose content the caller has stored:
 * its hash and size, or why it could not be read (`error` present).
 */
export type ReadElsewhere = { hash: string; size: number; error?: undefined } | { error: string }

export interface Capture {
  /**
   * The file's entry, or undefined when it cannot be captured (recorded in
   * `skipped`). The previous snapshot's own entry when nothing about the file
   * changed, so an unchanged tree shares every entry with it. With `read`, the
   * file is not read here: that is what reading it gave.
   */
  file(path: string, st: FileStat | string, read?: ReadElsewhere): SnapshotFile | undefined
  /** New entries, in the order captured (path order): the records of a delta. */
  readonly set: SnapshotFile[]
  readonly changed: SnapshotChanges
  readonly skipped: Array<{ path: string; reason: string }>
  /**
   * Skipped files whose stat alone does not say they would be skipped again (a read
   * error, a vanished file): with any, no stat can vouch for this capture.
   */
  readonly unstableSkips: number
  /** Files captured that the previous snapshot had too. */
  readonly kept: number
  /** Files captured that already had a stat-cache entry. */
  readonly cached: number
  /** Files that changed while they were read: no stat can vouch for what was captured. */
  readonly notReproducible: number
  /**
   * Files read while racily clean (an mtime too recent to trust), with the hash read:
   * their stat alone cannot vouch for them, their content can (see reproduce.ts).
   */
  readonly racy: Array<{ path: string; hash: string }>
}

/**
 * Why a file with this stat is left out of every snapshot, or undefined when it is
 * captured. Decided by the stat alone, so the same stat gives the same answer.
 */
export function skipReasonOf(st: FileStat, maxFileBytes: number): string | undefined {
  if ((st.mode & fs.constants.S_IFMT) !== fs.constants.S_IFREG) return 'not a regular file'
  if (st.size > maxFileBytes) return `larger than ${maxFileBytes} bytes`
  return undefined
}

/** A file's bytes, never through a link swapped in since the listing, never blocking on a FIFO. */
function readNoFollow(abs: string): Buffer {
  const fd = fs.openSync(
    abs,
    fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (fs.constants.O_NOFOLLOW ?? 0),
  )
  try {
    if (!fs.fstatSync(fd).isFile())
      throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' })
    return fs.readFileSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/** A stat, or why there is none (for `Capture.file`). */
export function statOf(abs: string): FileStat | string {
  try {
    return fs.statSync(abs, { throwIfNoEntry: false }) ?? 'vanished'
  } catch (err) {
    return errnoCode(err) ?? 'stat failed'
  }
}

export function createCapture(s: CaptureSetup): Capture {
  const { root, blobs, cache, prev, startedAt, maxFileBytes } = s
  const set: SnapshotFile[] = []
  const changed: SnapshotChanges = { added: [], modified: [], deleted: [] }
  const skipped: Capture['skipped'] = []
  let kept = 0
  let cached = 0
  let notReproducible = 0
  let unstableSkips = 0
  const racy: Capture['racy'] = []
  const skip = (path: string, reason: string) => (skipped.push({ path, reason }), undefined)

  const unstable = (path: string, reason: string) => (unstableSkips++, skip(path, reason))

  function file(path: string, st: FileStat | string, read?: ReadElsewhere): SnapshotFile | undefined {
    if (typeof st === 'string') return unstable(path, st)
    const reason = skipReasonOf(st, maxFileBytes)
    if (reason) return skip(path, reason)
    if (cache.get(path)) cached++
    let hash = cache.cleanHash(path, st)
    let size = st.size
    if (hash === undefined) {
      if (read?.error !== undefined)
        return read.error === SECRET_SKIP ? skip(path, read.error) : unstable(path, read.error)
      if (read) ({ hash, size } = read)
      else {
        let raw: Buffer
        try {
          raw = readNoFollow(`${root}/${path}`)
        } catch (err) {
          return unstable(path, errnoCode(err) ?? 'read failed')
        }
        // A secret by content (the gate's check) is never stored.
        if (secretContentKind(raw)) return skip(path, SECRET_SKIP)
        hash = sha256(raw)
        size = raw.length
        blobs.put(hash, raw)
      }
      if (size !== st.size) notReproducible++
      else if (st.mtimeMs >= startedAt - RACY_MARGIN_MS) racy.push({ path, hash })
      // A file that changed between stat and read is not cached: the next snapshot reads it again.
      if (size === st.size)
        cache.set(path, { size, mtimeMs: st.mtimeMs, ino: st.ino, mode: st.mode, hash, checkedAt: startedAt })
    }
    const old = prev.get(path)
    if (old) kept++
    if (old && old.hash === hash && old.size === size && old.mode === st.mode && old.mtimeMs === st.mtimeMs)
      return old
    const entry = { path, hash, size, mode: st.mode, mtimeMs: st.mtimeMs }
    set.push(entry)
    if (!old) changed.added.push(path)
    else if (old.hash !== hash || old.mode !== st.mode) changed.modified.push(path)
    return entry
  }

  return {
    file,
    set,
    changed,
    skipped,
    racy,
    get kept() {
      return kept
    },
    get cached() {
      return cached
    },
    get unstableSkips() {
      return unstableSkips
    },
    get notReproducible() {
      return notReproducible
    },
  }
}
