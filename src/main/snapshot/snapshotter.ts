import fs from 'node:fs'
import type { SnapshotTables } from '../store/snapshot-tables'
import type { SnapshotFile, SnapshotInfo } from '../store/types'
import { createBlobStore } from './blobs'
import { captureAll } from './captureAll'
import { createCapture, statOf, type Capture } from './capture'
import { createChangeTracker } from './changeTracker'
import { recordListing, restoreListing, type ReusableListing } from './listingCache'
import { applyManifestDeltas } from './manifest'
import { createManifestStore } from './manifestStore'
import { createSnapshotRows, type SnapshotRow } from './snapshotReads'
import type { Snapshotter, SnapshotterOptions, TakeSnapshotResult, TakenListing } from './snapshotTypes'
import { takePrefetched, type Prefetched } from './earlyState'
import { loadState, saveState } from './savedState'
import { isListed, namesChanged } from './sortedPaths'
import { loadStatCache, type FileStat, type StatCache } from './statCache'
import { skippedByStat, verify, withCaptured, type Reproducible } from './reproduce'
import { statFiles, warmStatHelpers } from './statFiles'

export { diffManifests, type SnapshotChanges } from './manifest'

export type { Snapshotter, SnapshotterOptions, TakeSnapshotResult } from './snapshotTypes'

/**
 * Above this many files whose stats changed, a snapshot captures everything in
 * slices (and compresses off this thread) instead of capturing them in one go.
 */
const PARTIAL_MAX_FILES = 1000
/** A saved state of ~4,000 paths or more: its snapshot stats on helper threads (statFiles.ts). */
const WARM_STATE_BYTES = 256 * 1024

/** Stats of the saved listing's paths, started before the snapshot that uses them. */
interface EarlyStats {
  paths: readonly string[]
  stats: Promise<Float64Array>
}

function fileSize(file: string): number | undefined {
  try {
    return fs.statSync(file).size
  } catch {
    return undefined
  }
}

function isSafeRelative(p: string): boolean {
  if (!p || p.startsWith('/') || p.includes('\0') || p.includes('\\')) return false
  return !p.includes('..') || !p.split('/').includes('..')
}

/** The records a delta manifest on the previous snapshot stores for this capture. */
const delta = (c: Capture) => ({ set: c.set, removed: c.changed.deleted })

/** The racily clean files of a capture by their index in `paths` (both in path order). */
function untrustedOf(paths: readonly string[], racy: Capture['racy']): Map<number, string> {
  const out = new Map<number, string>()
  for (let i = 0, r = 0; i < paths.length && r < racy.length; i++)
    if (paths[i] === racy[r].path) out.set(i, racy[r++].hash)
  return out
}

export function createSnapshotter(tables: SnapshotTables, opts: SnapshotterOptions): Snapshotter {
  const { root } = opts
  const maxFileBytes = opts.maxFileBytes ?? 64 * 1024 * 1024
  const blobs = createBlobStore(tables.blobs)
  const statRows = tables.statCache(root)
  // A name the listing would drop (see listedPaths) counts as ignored when a directory is re-read.
  const ignored = opts.isIgnored
  const isIgnored = ignored && ((rel: string) => !isSafeRelative(rel) || ignored(rel))
  let statCache: StatCache | undefined
  // Until a full capture loads `statCache`: one that writes what it learns, having read nothing.
  let unloadedCache: StatCache | undefined
  // The last listing, while the directories it came from are unchanged.
  let listing: ReusableListing | undefined
  // The last snapshot, when taking it again from the same listing and the same
  // stats is bound to give the same manifest: no file was skipped for a reason its
  // stat does not show (a too-big or special file is skipped again by its stat) or
  // racily clean, so each captured file has a clean stat-cache entry matching its stat.
  // Racily clean files are vouched for by their content instead (reproduce.ts).
  let reproducible: Reproducible | undefined
  // A snapshot whose state is not saved yet (partial captures save it at `close`).
  let unsaved: string | undefined
  // With `watch`: file events since the last snapshot, and what that snapshot was
  // taken from, so the next one need only re-capture the files events name.
  const tracker = opts.watch && opts.listDirectories ? createChangeTracker(root) : undefined
  let tracked: { paths: readonly string[]; manifestHash: string } | undefined
  // Decoded manifests by hash; a few recent ones are enough (baseline + latest).
  const manifests = createManifestStore(blobs)
  const loadManifest = (hash: string) => manifests.load(hash)
  const rows = createSnapshotRows(root, tables.snapshots(root), blobs, manifests)
  // A state this big means a big stat is coming: start its threads while the session sets up.
  if (opts.stateFile && (fileSize(opts.stateFile) ?? 0) >= WARM_STATE_BYTES) warmStatHelpers()
  const insertRow = rows.insert
  let queue: Promise<unknown> = Promise.resolve()
  // Whether the state file was looked at (once, before the first snapshot).
  let restored = false
  // What `restore` started for the first snapshot, until it takes them.
  let pending: { startedAt: number; prefetching?: Promise<void>; early?: EarlyStats } | undefined
  // Snapshots this snapshotter took by stat'ing (the first one starts no watch).
  let taken = 0
  // What the newest snapshot was taken from (`lastListing`).
  let lastTaken: TakenListing | undefined

  function listedPaths(listed: string[]): string[] {
    const paths = listed.filter(isSafeRelative)
    let sorted = true
    for (let i = 1; i < paths.length && sorted; i++) sorted = paths[i - 1] < paths[i]
    return sorted ? paths : [...new Set(paths)].sort()
  }

  /** The files to capture: the last listing when it still holds, else a new one. */
  async function currentPaths(
    prefetching?: Promise<void>,
  ): Promise<{ paths: readonly string[]; relisted: boolean }> {
    const now = opts.now ?? Date.now
    await prefetching?.catch(() => undefined) // without it, the refresh stats on this thread
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
    const cache = statCache ?? partialCache()
    // An unchanged tree reproduces the previous manifest exactly: nothing new to store.
    const unchanged = previous !== undefined && c.set.length === 0 && c.changed.deleted.length === 0
    let totalBytes = 0
    for (const f of files) totalBytes += f.size
    const info = tables.transaction((): SnapshotInfo => {
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
   * Returns what the CLI's entry prefetched of it, if that is what was restored.
   */
  function restoreSaved(previous: SnapshotRow | undefined): Prefetched | undefined {
    if (!opts.stateFile || listing || !opts.listDirectories) return undefined
    const early = takePrefetched(opts.stateFile, root)
    const saved = early?.state ?? loadState(opts.stateFile, root)
    if (!saved?.listing) return undefined
    listing = restoreListing(root, saved.listing, isIgnored)
    if (saved.stats && previous?.manifest_hash === saved.manifestHash)
      reproducible = {
        paths: saved.listing.paths,
        stats: saved.stats,
        manifestHash: saved.manifestHash,
        untrusted: saved.untrusted ?? new Map(),
      }
    return early
  }

  /** Leaves the listing and, when they vouch for the manifest, the stats for the next process. */
  function persist(manifestHash: string): void {
    unsaved = undefined
    if (!opts.stateFile || !listing) return
    const r = reproducible?.manifestHash === manifestHash ? reproducible : undefined
    try {
      saveState(opts.stateFile, root, {
        manifestHash,
        listing: listing.state(),
        stats: r?.stats,
        untrusted: r?.untrusted,
      })
    } catch {
      // Only a cache: the next process lists and stats as if there were none.
    }
  }

  /**
   * Once, in a new process: what the state file vouches for, and its checks started
   * on helper threads — the listing's directories, then the stats — while this thread
   * goes on. The first snapshot uses the stats when the listing holds; later ones may
   * need no stats at all.
   */
  function restore(): void {
    if (restored) return
    restored = true
    // Stats the CLI started before this program had loaded (earlyState.ts) are these.
    const prefetched = restoreSaved(rows.latest())
    const early = reproducible && {
      paths: reproducible.paths,
      stats: prefetched?.stats ?? statFiles(root, reproducible.paths),
    }
    const startedAt = (early && prefetched?.startedAt) || Date.now()
    pending = { startedAt, prefetching: listing?.prefetch(), early }
  }

  async function take(sessionId: string | null, label: string | undefined): Promise<TakeSnapshotResult> {
    const calledAt = Date.now()
    const report = await tracker?.collect()
    restore()
    const { early, prefetching, startedAt: startedEarly = calledAt } = pending ?? {}
    pending = undefined
    // Stats started ahead (`prepare`, the CLI's entry) show the tree as of then.
    const startedAt = Math.min(calledAt, startedEarly)
    lastTaken = undefined
    const { paths, relisted } = await currentPaths(prefetching)
    lastTaken = { paths }
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
      if (report.paths.size === 0 && paths === since.paths) {
        // Nothing named and the same listing: the previous manifest as it is, without loading it
        // (~0.3 s for 70,000 files the first time in a process).
        tracked = since
        const info = insertRow({
          ...meta,
          manifestHash: previous.manifest_hash,
          fileCount: previous.file_count,
          totalBytes: previous.total_bytes,
        })
        return { info, changed: { added: [], modified: [], deleted: [] }, skipped: [], how: 'events' }
      }
      const base = reproducible?.manifestHash === previous.manifest_hash ? reproducible : undefined
      const { info, c } = storeChanged(report.paths, since.paths, paths, previous, base, meta)
      return { info, changed: c.changed, skipped: c.skipped, how: 'events' }
    }
    // Watch before the stats: a change after them is an event for the next snapshot. Not
    // for the first one (a session's baseline): a session that changes nothing never
    // needs the events, and a watch per directory costs a big tree ~0.1 s to set up
    // and again to close. The first checkpoint stats everything and starts watching.
    if (tracker && listing && taken > 0 && (relisted || !tracker.watching)) tracker.watch(listing.directories)
    taken++

    const stats = await (early?.paths === paths ? early.stats : statFiles(root, paths))
    lastTaken = { paths, stats }
    const last = reproducible
    reproducible = undefined
    const v =
      last && previous && last.manifestHash === previous.manifest_hash
        ? verify(last, paths, stats, root, startedAt)
        : undefined
    if (v && v.changed.length === 0 && last!.paths === paths) {
      // An unchanged tree: what the full capture below would conclude, without the per-file work.
      reproducible = { ...last!, untrusted: v.untrusted }
      if (tracker?.watching) tracked = { paths, manifestHash: last!.manifestHash }
      lastTaken.unchangedSince = last!.manifestHash
      const info = insertRow({
        ...meta,
        manifestHash: previous!.manifest_hash,
        fileCount: previous!.file_count,
        totalBytes: previous!.total_bytes,
      })
      // Entries the content vouched for and that are now old enough: the next process need not read them.
      if (v.untrusted.size < last!.untrusted.size) persist(info.manifestHash)
      const skipped = skippedByStat(paths, stats, maxFileBytes)
      return { info, changed: { added: [], modified: [], deleted: [] }, skipped, how: 'stat' }
    }
    if (v && v.changed.length <= PARTIAL_MAX_FILES) {
      // A few files differ from what the stats vouch for: capture those alone.
      const base = { paths, stats, untrusted: v.untrusted }
      const { info, c } = storeChanged(new Set(v.changed), last!.paths, paths, previous!, base, meta)
      return { info, changed: c.changed, skipped: c.skipped, how: 'stat' }
    }
    const cache = (statCache ??= loadStatCache(statRows))
    const prevManifest = previous && loadManifest(previous.manifest_hash)
    const prev = prevManifest?.byPath ?? new Map<string, SnapshotFile>()
    const c = createCapture({ root, blobs, cache, prev, startedAt, maxFileBytes })
    const { files, notStated } = await captureAll({
      tables,
      root,
      paths,
      stats,
      capture: c,
      cache,
      blobs,
      maxFileBytes,
    })
    if (c.cached !== cache.size) cache.retain(new Set(files.map((f) => f.path)))
    // Paths of the previous manifest that are not captured now (sorted, as the manifest is).
    if (prevManifest && c.kept < prevManifest.files.length) {
      const captured = new Set(files.map((f) => f.path))
      for (const f of prevManifest.files) if (!captured.has(f.path)) c.changed.deleted.push(f.path)
    }
    const info = store(c, files, previous, meta)
    if (c.unstableSkips === 0 && c.notReproducible === 0 && notStated === 0)
      reproducible = { paths, stats, manifestHash: info.manifestHash, untrusted: untrustedOf(paths, c.racy) }
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
  ): { c: Capture; captured: Map<string, { st: FileStat; hash: string }> } {
    const prev = loadManifest(previous.manifest_hash).byPath
    const cache = statCache ?? partialCache()
    const c = createCapture({ root, blobs, cache, prev, startedAt, maxFileBytes })
    const captured = new Map<string, { st: FileStat; hash: string }>()
    const candidates = new Set(named)
    if (listed !== listedBefore) for (const p of namesChanged(listedBefore, listed)) candidates.add(p)
    tables.transaction(() => {
      for (const p of [...candidates].sort()) {
        const st = isListed(listed, p) ? statOf(`${root}/${p}`) : undefined
        const f = st && c.file(p, st)
        if (f && typeof st === 'object') captured.set(p, { st, hash: f.hash })
        if (f || !prev.has(p)) continue
        c.changed.deleted.push(p)
        cache.forget(p)
      }
    })()
    return { c, captured }
  }

  /**
   * Stores a snapshot of the files `named` (and those listed or unlisted since)
   * on top of the previous one; with `base`, the stats that vouch for it too.
   */
  function storeChanged(
    named: ReadonlySet<string>,
    listedBefore: readonly string[],
    paths: readonly string[],
    previous: SnapshotRow,
    base: Omit<Reproducible, 'manifestHash'> | undefined,
    meta: { sessionId: string | null; label: string | undefined; createdAt: number },
  ): { info: SnapshotInfo; c: Capture } {
    reproducible = undefined
    const { c, captured } = captureChanged(named, listedBefore, paths, previous, meta.createdAt)
    const files = applyManifestDeltas(loadManifest(previous.manifest_hash).files, [delta(c)])
    const info = store(c, files, previous, meta)
    if (tracker?.watching) tracked = { paths, manifestHash: info.manifestHash }
    if (base && c.unstableSkips === 0 && c.notReproducible === 0)
      reproducible = withCaptured(base, paths, captured, info.manifestHash)
    // Saved when the snapshotter closes: a step's checkpoint should not write the whole state.
    unsaved = info.manifestHash
    return { info, c }
  }

  /** For captures of a few files: the stat cache without reading its rows (see loadStatCache). */
  function partialCache(): StatCache {
    return (unloadedCache ??= loadStatCache(statRows, { unloaded: true }))
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
          unloadedCache = undefined
          reproducible = undefined
          tracked = undefined
          throw err
        }),
      )
      queue = run.catch(() => undefined)
      return run
    },

    ...rows.reads,

    keepBlob(hash, raw) {
      blobs.put(hash, raw)
    },

    lastListing: () => (listing ? lastTaken : undefined),

    prepare: restore,

    close() {
      if (unsaved) persist(unsaved)
      tracker?.close()
      tracked = undefined
    },
  }
  return snapshotter
}
