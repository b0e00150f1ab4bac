import type { SqliteDatabase } from '../store/sqlite'
import type { SnapshotFile, SnapshotInfo } from '../store/types'
import type { BaselineReader } from '../tools/types'
import { createBlobStore } from './blobs'
import { createBlobWriter } from './blobWriter'
import { createCapture, statOf, type Capture } from './capture'
import { createChangeTracker } from './changeTracker'
import { recordListing, restoreListing, type ReusableListing } from './listingCache'
import { applyManifestDeltas, type SnapshotChanges } from './manifest'
import { createManifestStore, type LoadedManifest } from './manifestStore'
import { createSnapshotRows, type SnapshotRow } from './snapshotReads'
import { loadState, saveState } from './savedState'
import { isListed, namesChanged } from './sortedPaths'
import { loadStatCache, type StatCache } from './statCache'
import { STAT_FIELDS, STAT_OK, statFiles } from './statFiles'

export { diffManifests, type SnapshotChanges } from './manifest'

export interface SnapshotterOptions {
  /** The project root, already realpath'd. */
  root: string
  /**
   * Every file a snapshot may capture, as root-relative POSIX paths. The caller
   * owns the policy: this must already leave out denied files (`.env`, keys,
   * `.git/`) and ignored ones — in the app it is the sandbox's ripgrep listing.
   * The snapshotter captures whatever it is given.
   */
  listFiles: () => Promise<string[]>
  /**
   * Optional, and what lets a snapshot of a tree whose shape has not changed skip
   * `listFiles` and only stat the files: every directory the listing descends into,
   * root-relative ('' for the root), including those holding no listed file (empty,
   * or all of whose files are ignored). In the app:
   * `() => listUnignoredDirectories(root, (rel) => sandbox.isIgnored(rel))`.
   * Without it every snapshot lists.
   */
  listDirectories?: () => Promise<string[]>
  /**
   * Optional, with `listDirectories`: true for a root-relative path `listFiles`
   * leaves out (ignored or denied). With it, a snapshot after some directories
   * changed (a restore just wrote into them) re-reads only those and judges new
   * names by it instead of listing everything again; it must agree with the
   * listing. In the app: `(rel) => sandbox.isIgnored(rel)`.
   */
  isIgnored?: (rel: string) => boolean
  /**
   * Date.now unless given. Decides which directories changed too recently to
   * trust (see recordListing); tests move it ahead so that fresh ones count as old.
   */
  now?: () => number
  /** Larger files are left out and reported in `skipped` (default 64 MB). */
  maxFileBytes?: number
  /**
   * Optional, with `listDirectories`: keep watching the listed directories for
   * file events (changeTracker.ts) so that a snapshot re-captures only the files
   * they name. For a long-lived process (the app, an agent run); it holds one
   * watch per directory until `close`.
   */
  watch?: boolean
  /**
   * Optional: a file (savedState.ts) where the listing and the stats of the last
   * snapshot are kept for the next process, so that a new process on an unchanged
   * tree stats the files and is done, without listing or loading the stat cache.
   * It must be one file per root and listing policy (stateFileFor).
   */
  stateFile?: string
}

export interface TakeSnapshotResult {
  info: SnapshotInfo
  /** Against the previous snapshot of the same root (everything is `added` for the first). */
  changed: SnapshotChanges
  /** Listed files that could not be captured: vanished, unreadable, not a regular file, too large. */
  skipped: Array<{ path: string; reason: string }>
  /**
   * How the files were checked: `events` re-captured only what file events named
   * (with `watch`), `stat` stat'ed every listed file.
   */
  how: 'events' | 'stat'
}

export interface Snapshotter {
  readonly root: string
  takeSnapshot(opts: { sessionId: string | null; label?: string }): Promise<TakeSnapshotResult>
  getSnapshot(snapshotId: number): SnapshotInfo | undefined
  /** Snapshots of this root, oldest first; optionally only one session's. */
  listSnapshots(opts?: { sessionId?: string }): SnapshotInfo[]
  getManifest(snapshotId: number): SnapshotFile[]
  /** The same, shared with the snapshotter's cache (no copy): never modify it. */
  readManifest(snapshotId: number): LoadedManifest
  /** Raw bytes of a blob, verified against its hash; throws a clear error when missing or corrupt. */
  readBlob(hash: string): Buffer
  /** The file's bytes in that snapshot, or null when it was not in it. */
  readFileAt(snapshotId: number, path: string): Buffer | null
  /** What changed from one snapshot to another (paths sorted). */
  diffSnapshots(fromId: number, toId: number): SnapshotChanges
  baselineReader(snapshotId: number): BaselineReader
  /** Stops watching (with `watch`); later snapshots stat every file. */
  close(): void
}

/** Files per synchronous slice; between slices the event loop gets a turn. */
const SLICE_FILES = 2000
const SLICE_BYTES = 32 * 1024 * 1024

function isSafeRelative(p: string): boolean {
  if (!p || p.startsWith('/') || p.includes('\0') || p.includes('\\')) return false
  return !p.includes('..') || !p.split('/').includes('..')
}

/** The records a delta manifest on the previous snapshot stores for this capture. */
const delta = (c: Capture) => ({ set: c.set, removed: c.changed.deleted })

function sameNumbers(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export function createSnapshotter(db: SqliteDatabase, opts: SnapshotterOptions): Snapshotter {
  const { root } = opts
  const maxFileBytes = opts.maxFileBytes ?? 64 * 1024 * 1024
  const blobs = createBlobStore(db)
  // A name the listing would drop (see listedPaths) counts as ignored when a directory is re-read.
  const ignored = opts.isIgnored
  const isIgnored = ignored && ((rel: string) => !isSafeRelative(rel) || ignored(rel))
  let statCache: StatCache | undefined
  // The last listing, while the directories it came from are unchanged.
  let listing: ReusableListing | undefined
  // The last snapshot, when taking it again from the same listing and the same
  // stats is bound to give the same manifest: no file was skipped or racily
  // clean, so each has a clean stat-cache entry matching its stat.
  let reproducible: { paths: readonly string[]; stats: Float64Array; manifestHash: string } | undefined
  // With `watch`: file events since the last snapshot, and what that snapshot was
  // taken from, so the next one need only re-capture the files events name.
  const tracker = opts.watch && opts.listDirectories ? createChangeTracker(root) : undefined
  let tracked: { paths: readonly string[]; manifestHash: string } | undefined
  // Decoded manifests by hash; a few recent ones are enough (baseline + latest).
  const manifests = createManifestStore(blobs)
  const loadManifest = (hash: string) => manifests.load(hash)
  const rows = createSnapshotRows(db, root, blobs, manifests)
  const insertRow = rows.insert
  let queue: Promise<unknown> = Promise.resolve()
  // Whether the state file was looked at (once, before the first snapshot).
  let restored = false
  // Snapshots this snapshotter took by stat'ing (the first one starts no watch).
  let taken = 0

  function listedPaths(listed: string[]): string[] {
    const paths = listed.filter(isSafeRelative)
    let sorted = true
    for (let i = 1; i < paths.length && sorted; i++) sorted = paths[i - 1] < paths[i]
    return sorted ? paths : [...new Set(paths)].sort()
  }

  /** The files to capture: the last listing when it still holds, else a new one. */
  async function currentPaths(): Promise<{ paths: readonly string[]; relisted: boolean }> {
    const now = opts.now ?? Date.now
    const kept = listing?.refresh(now())
    if (kept) return { paths: kept, relisted: false }
    listing = undefined
    const listedAt = now()
    const [listed, directories] = await Promise.all([opts.listFiles(), opts.listDirectories?.()])
    const paths = listedPaths(listed)
    if (directories) listing = recordListing(root, paths, directories, listedAt, isIgnored)
    return { paths, relisted: true }
  }

  /** Stores the snapshot row (and its manifest, unless it is the previous one). */
  function store(
    c: Capture,
    files: readonly SnapshotFile[],
    previous: SnapshotRow | undefined,
    meta: { sessionId: string | null; label: string | undefined; createdAt: number },
  ): SnapshotInfo {
    const cache = statCache!
    // An unchanged tree reproduces the previous manifest exactly: nothing new to store.
    const unchanged = previous !== undefined && c.set.length === 0 && c.changed.deleted.length === 0
    let totalBytes = 0
    for (const f of files) totalBytes += f.size
    const info = db.transaction((): SnapshotInfo => {
      const manifestHash = unchanged
        ? previous.manifest_hash
        : manifests.put(files, previous && { base: previous.manifest_hash, ...delta(c) })
      cache.flush()
      return insertRow({ ...meta, manifestHash, fileCount: files.length, totalBytes })
    })()
    cache.committed()
    return info
  }

  /**
   * Once per snapshotter: what an earlier process left in the state file. The
   * listing holds while its directories are unchanged, whoever recorded it; the
   * stats only vouch for the newest snapshot's manifest if they were taken with it.
   */
  function restoreSaved(previous: SnapshotRow | undefined): void {
    if (!opts.stateFile || listing || !opts.listDirectories) return
    const saved = loadState(opts.stateFile, root)
    if (!saved?.listing) return
    listing = restoreListing(root, saved.listing, isIgnored)
    if (saved.stats && previous?.manifest_hash === saved.manifestHash)
      reproducible = { paths: saved.listing.paths, stats: saved.stats, manifestHash: saved.manifestHash }
  }

  /** Leaves the listing and, when they vouch for the manifest, the stats for the next process. */
  function persist(manifestHash: string): void {
    if (!opts.stateFile || !listing) return
    try {
      saveState(opts.stateFile, root, {
        manifestHash,
        listing: listing.state(),
        stats: reproducible?.manifestHash === manifestHash ? reproducible.stats : undefined,
      })
    } catch {
      // Only a cache: the next process lists and stats as if there were none.
    }
  }

  async function take(sessionId: string | null, label: string | undefined): Promise<TakeSnapshotResult> {
    const startedAt = Date.now()
    const report = await tracker?.collect()
    if (!restored) {
      restored = true
      restoreSaved(rows.latest())
    }
    const { paths, relisted } = await currentPaths()
    const previous = rows.latest()
    const meta = { sessionId, label, createdAt: startedAt }
    const since = tracked
    tracked = undefined
    if (
      report?.trusted &&
      !relisted &&
      since &&
      previous &&
      since.manifestHash === previous.manifest_hash &&
      tracker!.watching
    ) {
      reproducible = undefined
      statCache ??= loadStatCache(db, root)
      const c = captureChanged(report.paths, since.paths, paths, previous, startedAt)
      const files = applyManifestDeltas(loadManifest(previous.manifest_hash).files, [delta(c)])
      const info = store(c, files, previous, meta)
      tracked = { paths, manifestHash: info.manifestHash }
      return { info, changed: c.changed, skipped: c.skipped, how: 'events' }
    }
    // Watch before the stats: a change after them is an event for the next snapshot. Not
    // for the first one (a session's baseline): a session that changes nothing never
    // needs the events, and a watch per directory costs a big tree ~0.1 s to set up
    // and again to close. The first checkpoint stats everything and starts watching.
    if (tracker && listing && taken > 0 && (relisted || !tracker.watching)) tracker.watch(listing.directories)
    taken++

    const stats = await statFiles(root, paths)
    const last = reproducible
    reproducible = undefined
    if (
      last &&
      previous &&
      last.paths === paths &&
      last.manifestHash === previous.manifest_hash &&
      sameNumbers(last.stats, stats)
    ) {
      // An unchanged tree: what the full capture below would conclude, without the per-file work.
      reproducible = last
      if (tracker?.watching) tracked = { paths, manifestHash: last.manifestHash }
      const info = insertRow({
        ...meta,
        manifestHash: previous.manifest_hash,
        fileCount: previous.file_count,
        totalBytes: previous.total_bytes,
      })
      return { info, changed: { added: [], modified: [], deleted: [] }, skipped: [], how: 'stat' }
    }
    const cache = (statCache ??= loadStatCache(db, root))
    const prevManifest = previous && loadManifest(previous.manifest_hash)
    const prev = prevManifest?.byPath ?? new Map<string, SnapshotFile>()
    const writer = createBlobWriter(db, blobs)
    const c = createCapture({ root, blobs, cache, prev, startedAt, maxFileBytes, writer })
    const files: SnapshotFile[] = []
    let notStated = 0
    // Sliced, so the event loop gets a turn between slices; each slice one transaction.
    const captureSlice = db.transaction((from: number): number => {
      let i = from
      let bytes = 0
      for (; i < paths.length && i - from < SLICE_FILES && bytes < SLICE_BYTES; i++) {
        const at = i * STAT_FIELDS
        const ok = stats[at] === STAT_OK
        if (!ok) notStated++ // statFiles says: stat it again to learn why
        const st = ok
          ? { size: stats[at + 1], mtimeMs: stats[at + 2], ino: stats[at + 3], mode: stats[at + 4] }
          : statOf(`${root}/${paths[i]}`)
        const f = c.file(paths[i], st)
        if (!f) continue
        files.push(f)
        bytes += f.size
      }
      return i
    })
    for (let i = 0; i < paths.length;) {
      i = captureSlice(i)
      if (i < paths.length) await new Promise((resolve) => setImmediate(resolve))
      await writer.room()
    }
    // Every new blob stored before the rows that name them.
    await writer.drain()
    if (c.cached !== cache.size) cache.retain(new Set(files.map((f) => f.path)))
    // Paths of the previous manifest that are not captured now (sorted, as the manifest is).
    if (prevManifest && c.kept < prevManifest.files.length) {
      const captured = new Set(files.map((f) => f.path))
      for (const f of prevManifest.files) if (!captured.has(f.path)) c.changed.deleted.push(f.path)
    }
    const info = store(c, files, previous, meta)
    if (c.skipped.length === 0 && c.notReproducible === 0 && notStated === 0)
      reproducible = { paths, stats, manifestHash: info.manifestHash }
    if (tracker?.watching) tracked = { paths, manifestHash: info.manifestHash }
    persist(info.manifestHash)
    return { info, changed: c.changed, skipped: c.skipped, how: 'stat' }
  }

  /**
   * The incremental capture: only the files file events named, those listed now
   * and not before, and those listed before and not now; everything else is as
   * the previous snapshot has it.
   */
  function captureChanged(
    named: ReadonlySet<string>,
    listedBefore: readonly string[],
    listed: readonly string[],
    previous: SnapshotRow,
    startedAt: number,
  ): Capture {
    const prev = loadManifest(previous.manifest_hash).byPath
    const cache = statCache!
    const c = createCapture({ root, blobs, cache, prev, startedAt, maxFileBytes })
    const candidates = new Set(named)
    if (listed !== listedBefore) for (const p of namesChanged(listedBefore, listed)) candidates.add(p)
    db.transaction(() => {
      for (const p of [...candidates].sort()) {
        const f = isListed(listed, p) ? c.file(p, statOf(`${root}/${p}`)) : undefined
        if (f || !prev.has(p)) continue
        c.changed.deleted.push(p)
        cache.forget(p)
      }
    })()
    return c
  }

  const snapshotter: Snapshotter = {
    root,

    takeSnapshot({ sessionId, label }) {
      // Serialised: two overlapping snapshots would race on the stat cache.
      const run = queue.then(() =>
        take(sessionId, label).catch((err: unknown) => {
          // What is kept in memory may name blobs a failed transaction never stored:
          // start the next snapshot from what the database holds.
          statCache = undefined
          reproducible = undefined
          tracked = undefined
          throw err
        }),
      )
      queue = run.catch(() => undefined)
      return run
    },

    ...rows.reads,

    close() {
      tracker?.close()
      tracked = undefined
    },
  }
  return snapshotter
}
