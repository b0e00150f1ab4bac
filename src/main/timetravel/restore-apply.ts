import fs from 'node:fs'
import path from 'node:path'
import { errnoCode, errorMessage } from '../../shared/errors'
import type { EventDraft, StepwiseEvent } from '../../shared/protocol'
import { createBlobStore, sha256, type BlobStore } from '../snapshot/blobs'
import { createManifestStore } from '../snapshot/manifestStore'
import type { JournalEntry, RestoreKind, RestorePlan } from '../store/restore-journal'
import type { Store } from '../store/types'
import { beginTempWrite, tempPathFor } from '../containment/temp-files'
import { snapshotTablesOf } from '../store/snapshot-tables'

/**
 * Writing a restore to disk, crash-safely. The plan is journalled in SQLite before
 * the first file changes; the journal is marked done in the transaction that
 * appends `checkpoint.restored`. A restore cut short (crash, kill, power) leaves
 * a pending journal that `recoverInterruptedRestores` rolls forward: every blob
 * it needs was verified before the first write, and every write can be repeated.
 * That is what makes the restore whole, not how each file is written: a plain
 * file is rewritten in place (on this kind of file system several times faster
 * than a rename over it, which frees the old file's blocks), anything else is
 * replaced by a temp file renamed over it.
 */

export type { JournalEntry, RestoreKind, RestorePlan }

/** Test hook: called after each file written or deleted, with the count so far. */
export type FileHook = (done: number) => void

export function insertJournal(store: Store, entry: Omit<JournalEntry, 'id'>): number {
  return store.restoreJournal.insert(entry)
}

export function pendingJournals(store: Store, root?: string): JournalEntry[] {
  return store.restoreJournal.pending(root)
}

/** Appends the event and closes the journal in one transaction: both happen or neither. */
export function finishJournal(store: Store, entry: JournalEntry): StepwiseEvent {
  const draft: EventDraft = {
    type: 'checkpoint.restored',
    kind: entry.kind,
    snapshotId: entry.snapshotId,
    ...(entry.toSeq === undefined ? {} : { toSeq: entry.toSeq }),
    savedSnapshotId: entry.savedSnapshotId,
    paths: planPaths(entry.plan),
  }
  return store.restoreJournal.finish(entry.id, () => store.appendEvent(entry.sessionId, draft))
}

export function planPaths(plan: RestorePlan): string[] {
  return [...plan.write.map((w) => w.path), ...plan.delete].sort()
}

/**
 * Every blob the plan writes, read and verified against its hash before anything
 * is touched. Throws BlobError naming the path and hash. Contents are kept for the
 * writes unless they add up to more than `keepBytes` (then they are read again).
 */
export function verifyBlobs(blobs: BlobStore, plan: RestorePlan, keepBytes = 256 * 1024 * 1024) {
  const kept = new Map<string, Buffer>()
  let total = 0
  for (const w of plan.write) {
    if (kept.has(w.hash)) continue
    const raw = blobs.get(w.hash, w.path)
    total += raw.length
    if (total <= keepBytes) kept.set(w.hash, raw)
  }
  return (hash: string, what: string): Buffer => kept.get(hash) ?? blobs.get(hash, what)
}

/** A path from a manifest, refused unless it stays inside the root (a bundle could carry anything). */
export function checkRelative(rel: string): void {
  if (
    !rel ||
    rel.startsWith('/') ||
    rel.includes('\0') ||
    rel.includes('\\') ||
    rel.split('/').includes('..')
  )
    throw new Error(`Refusing to restore "${rel}": the path would leave the project.`)
}

/**
 * Applies the plan: deletions first (a file may give way to a folder of the same
 * name), then each write, in place or as temp file + rename in the file's own
 * folder (see writeFile). Every step is idempotent, so a recovery can apply the
 * same plan again from the start.
 */
export function applyPlan(
  root: string,
  plan: RestorePlan,
  content: (hash: string, what: string) => Buffer,
  onFile?: FileHook,
): void {
  let done = 0
  const insideChecked = new Set<string>()
  // The parent must resolve inside the root: a folder replaced by a symlink must not lead a write outside.
  const assertInside = (dir: string) => {
    const real = fs.realpathSync.native(dir)
    if (real !== root && !real.startsWith(root + path.sep))
      throw new Error(`Refusing to restore into ${dir}: it resolves outside the project (${real}).`)
  }
  const ensureDir = (dir: string) => {
    if (insideChecked.has(dir)) return
    fs.mkdirSync(dir, { recursive: true })
    assertInside(dir)
    insideChecked.add(dir)
  }
  for (const rel of plan.delete) {
    checkRelative(rel)
    const abs = path.join(root, rel)
    if (fs.existsSync(path.dirname(abs))) assertInside(path.dirname(abs))
    try {
      fs.unlinkSync(abs)
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw err
    }
    removeEmptyParents(root, path.dirname(abs))
    onFile?.(++done)
  }
  for (const w of plan.write) {
    checkRelative(w.path)
    const abs = path.join(root, w.path)
    const dir = path.dirname(abs)
    ensureDir(dir)
    writeFile(abs, content(w.hash, w.path), w.mode & 0o7777)
    onFile?.(++done)
  }
}

/**
 * Puts `data` at `abs` with permissions `mode`. A plain file with no other name
 * is rewritten in place: opened without following a link, written, cut to
 * length. Anything else there (a link, which must be replaced and never written
 * through; a file with hard links elsewhere; one we may not open) is replaced by
 * a temp file renamed over it.
 */
function writeFile(abs: string, data: Buffer, mode: number): void {
  if (overwrite(abs, data, mode)) return
  const tmp = tempPathFor(abs)
  const journal = beginTempWrite(tmp)
  try {
    fs.writeFileSync(tmp, data, { mode })
    fs.chmodSync(tmp, mode) // writeFileSync's mode is filtered by the umask
    fs.renameSync(tmp, abs)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  } finally {
    journal.done()
  }
}

function overwrite(abs: string, data: Buffer, mode: number): boolean {
  let fd: number
  try {
    fd = fs.openSync(abs, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW)
  } catch {
    return false // absent, a link (ELOOP), a folder, not writable: the temp file way
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile() || st.nlink !== 1) return false
    for (let at = 0; at < data.length;) {
      const n = fs.writeSync(fd, data, at, data.length - at, at)
      if (n <= 0) throw new Error(`Could not write ${abs}: the file system took no bytes.`)
      at += n
    }
    fs.ftruncateSync(fd, data.length)
    if ((st.mode & 0o7777) !== mode) fs.fchmodSync(fd, mode)
    return true
  } finally {
    fs.closeSync(fd)
  }
}

/** Folders emptied by a deletion go too (as git does), up to but never including the root. */
function removeEmptyParents(root: string, dir: string): void {
  while (dir.startsWith(root + path.sep)) {
    try {
      fs.rmdirSync(dir)
    } catch {
      return // not empty, or already gone
    }
    dir = path.dirname(dir)
  }
}

/**
 * The plan's files whose content now is neither what the restore writes there nor what the
 * checkpoint taken before it holds: changed by someone after the restore was cut short.
 */
function changedSince(store: Store, blobs: BlobStore, entry: JournalEntry): Set<string> {
  const saved = savedHashes(store, blobs, entry.savedSnapshotId)
  const target = new Map<string, string | null>(entry.plan.write.map((w) => [w.path, w.hash]))
  for (const rel of entry.plan.delete) target.set(rel, null)
  const changed = new Set<string>()
  for (const [rel, wanted] of target) {
    checkRelative(rel)
    const now = currentHash(path.join(entry.root, rel))
    if (now === wanted) continue
    const before = saved?.get(rel) ?? null
    if (saved && now !== before) changed.add(rel)
  }
  return changed
}

/** Path → content hash of a stored snapshot (undefined when it cannot be read: nothing is kept back). */
function savedHashes(store: Store, blobs: BlobStore, snapshotId: number): Map<string, string> | undefined {
  try {
    const row = store.getSnapshot(snapshotId)
    if (!row) return undefined
    const manifest = createManifestStore(blobs).load(row.manifestHash)
    return new Map(manifest.files.map((f) => [f.path, f.hash]))
  } catch {
    return undefined
  }
}

function currentHash(abs: string): string | null {
  try {
    const st = fs.lstatSync(abs)
    return st.isFile() ? sha256(fs.readFileSync(abs)) : `not a file: ${st.mode}`
  } catch {
    return null
  }
}

function withoutPaths(plan: RestorePlan, drop: ReadonlySet<string>): RestorePlan {
  if (drop.size === 0) return plan
  return {
    write: plan.write.filter((w) => !drop.has(w.path)),
    delete: plan.delete.filter((p) => !drop.has(p)),
  }
}

export interface RecoveredRestore {
  sessionId: string
  kind: RestoreKind
  snapshotId: number
  toSeq: number | undefined
  root: string
  paths: string[]
  /** In the user's words, for the host to show. */
  message: string
  /** Set when the restore could not be finished; the journal stays pending. */
  error?: string
}

/**
 * Finishes restores a crash cut short: each pending journal's plan is applied
 * again (every step is idempotent) and its event recorded. Hosts call this at
 * startup, before anything else touches the project; `root` limits it to one project.
 */
export function recoverInterruptedRestores(store: Store, opts: { root?: string } = {}): RecoveredRestore[] {
  const blobs = createBlobStore(snapshotTablesOf(store).blobs)
  return pendingJournals(store, opts.root).map((entry): RecoveredRestore => {
    const what = entry.kind === 'undo' ? 'an undo' : entry.kind === 'fork' ? 'a fork' : 'a rewind'
    const at = `checkpoint ${entry.snapshotId}${entry.toSeq === undefined ? '' : ` (step ${entry.toSeq})`}`
    const base = {
      sessionId: entry.sessionId,
      kind: entry.kind,
      snapshotId: entry.snapshotId,
      toSeq: entry.toSeq,
      root: entry.root,
      paths: planPaths(entry.plan),
    }
    try {
      // A file changed since the restore was cut short (the user fixed it by hand) is in no
      // checkpoint: replaying the plan over it would lose it. It stays as it is.
      const kept = changedSince(store, blobs, entry)
      const plan = withoutPaths(entry.plan, kept)
      applyPlan(entry.root, plan, verifyBlobs(blobs, plan))
      finishJournal(store, { ...entry, plan })
      const keptNote =
        kept.size === 0
          ? ''
          : ` ${[...kept].sort().join(', ')} changed after the ${what.split(' ')[1]} was cut short, so ` +
            `${kept.size === 1 ? 'it was' : 'they were'} left as ${kept.size === 1 ? 'it is' : 'they are'} (in no checkpoint yet).`
      return {
        ...base,
        paths: planPaths(plan),
        message:
          `${entry.root} was ${kept.size === 0 ? 'fully ' : ''}restored to ${at} of session ${entry.sessionId} after an ` +
          `interrupted ${what.split(' ')[1]}; the files from before it are saved as checkpoint ` +
          `${entry.savedSnapshotId} (stepwise sessions undo ${entry.sessionId} brings them back).${keptNote}`,
      }
    } catch (err) {
      const error = errorMessage(err)
      return {
        ...base,
        error,
        message:
          `${what[0].toUpperCase()}${what.slice(1)} of ${entry.root} to ${at} of session ${entry.sessionId} ` +
          `was interrupted and could not be finished: ${error} Some files may be as they were, others restored; ` +
          `the files from before it are saved as checkpoint ${entry.savedSnapshotId}.`,
      }
    }
  })
}
