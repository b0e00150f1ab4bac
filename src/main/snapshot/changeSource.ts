import fs from 'node:fs'
import type { SnapshotRow } from '../store/snapshot-tables'
import { isSafeRelative, listedPaths, untrustedOf } from './candidates'
import type { Capture } from './capture'
import { createChangeTracker } from './changeTracker'
import { takePrefetched, type Prefetched } from './earlyState'
import { recordListing, restoreListing, type ReusableListing } from './listingCache'
import { skippedByStat, verify, withCaptured, type Reproducible } from './reproduce'
import { loadState, saveState } from './savedState'
import type { SnapshotterOptions, TakeSnapshotResult, TakenListing } from './snapshotTypes'
import type { FileStat } from './statCache'
import { statFiles, warmStatHelpers } from './statFiles'

/**
 * What tells a snapshot which paths may have changed since the previous one, in the
 * order they are tried: the state an earlier process saved (its listing and stats),
 * file events from a watch on the listed directories, then a listing (kept while its
 * directories are unchanged, else listed again) and a stat of every listed file.
 * It answers with `Changes` for the capture (captureChanges.ts) and is told what was
 * stored, so that it can vouch for the next snapshot.
 */

/**
 * Above this many files whose stats changed, a snapshot captures everything in
 * slices (and compresses off this thread) instead of capturing them in one go.
 */
const PARTIAL_MAX_FILES = 1000
/** A saved state of ~4,000 paths or more: its snapshot stats on helper threads (statFiles.ts). */
const WARM_STATE_BYTES = 256 * 1024

type How = TakeSnapshotResult['how']

/** What may have changed since `previous`, the newest snapshot of the root. */
export type Changes =
  /** Nothing: the previous manifest as it is. `save`: the saved state should be written again. */
  | { kind: 'none'; how: How; previous: SnapshotRow; skipped: TakeSnapshotResult['skipped']; save: boolean }
  /**
   * The files `named` and those listed or unlisted since `listedBefore`; everything else as
   * `previous` has it. With `base`, stats that vouch for the rest of the listing.
   */
  | {
      kind: 'some'
      how: How
      previous: SnapshotRow
      named: ReadonlySet<string>
      listedBefore: readonly string[]
      paths: readonly string[]
      base: Omit<Reproducible, 'manifestHash'> | undefined
    }
  /** Anything: every listed file, with the stats just taken. */
  | { kind: 'all'; previous: SnapshotRow | undefined; paths: readonly string[]; stats: Float64Array }

export interface SnapshotPlan {
  /** What the snapshot shows the tree as of (stats started ahead show it as of then). */
  startedAt: number
  changes: Changes
}

export interface ChangeSource {
  /** The changes for the snapshot called at `calledAt`. */
  plan(calledAt: number): Promise<SnapshotPlan>
  /** After `none` was stored. */
  storedUnchanged(changes: Extract<Changes, { kind: 'none' }>): void
  /** After `some` was stored; `captured`: the files it captured, when its stats vouch for them. */
  storedSome(
    changes: Extract<Changes, { kind: 'some' }>,
    manifestHash: string,
    captured: ReadonlyMap<string, { st: FileStat; hash: string }> | undefined,
  ): void
  /** After `all` was stored; `racy`: its racily clean files, when its stats vouch for the rest. */
  storedAll(
    changes: Extract<Changes, { kind: 'all' }>,
    manifestHash: string,
    racy: Capture['racy'] | undefined,
  ): void
  /** After a failed snapshot: vouch for nothing that snapshot may have touched. */
  forget(): void
  /** Snapshotter.prepare. */
  prepare(): void
  /** Snapshotter.lastListing. */
  lastListing(): TakenListing | undefined
  /** Saves what is not saved yet and stops watching. */
  close(): void
}

function fileSize(file: string): number | undefined {
  try {
    return fs.statSync(file).size
  } catch {
    return undefined
  }
}

/** Stats of the saved listing's paths, started before the snapshot that uses them. */
interface EarlyStats {
  paths: readonly string[]
  stats: Promise<Float64Array>
}

/**
 * Once per snapshotter: what an earlier process left in the state file. The
 * listing holds while its directories are unchanged, whoever recorded it; the
 * stats only vouch for the newest snapshot's manifest if they were taken with it.
 * `early`: what the CLI's entry prefetched of it, if that is what was restored.
 */
function restoreSaved(
  opts: SnapshotterOptions,
  previous: SnapshotRow | undefined,
  isIgnored: ((rel: string) => boolean) | undefined,
):
  | { listing: ReusableListing; reproducible: Reproducible | undefined; early: Prefetched | undefined }
  | undefined {
  const { root } = opts
  if (!opts.stateFile || !opts.listDirectories) return undefined
  const early = takePrefetched(opts.stateFile, root)
  const saved = early?.state ?? loadState(opts.stateFile, root)
  if (!saved?.listing) return undefined
  const listing = restoreListing(root, saved.listing, isIgnored)
  const reproducible =
    saved.stats && previous?.manifest_hash === saved.manifestHash
      ? {
          paths: saved.listing.paths,
          stats: saved.stats,
          manifestHash: saved.manifestHash,
          untrusted: saved.untrusted ?? new Map<number, string>(),
        }
      : undefined
  return { listing, reproducible, early }
}

/** What a snapshot leaves to reuse: its listing, its manifest, and the stats that may vouch for it. */
interface ListingToSave {
  listing: ReusableListing
  manifestHash: string
  reproducible: Reproducible | undefined
}

/** Saves the listing and, when they vouch for `manifestHash`, the stats (`reproducible`). */
function saveListing(
  file: string,
  root: string,
  { listing, manifestHash, reproducible }: ListingToSave,
): void {
  const r = reproducible?.manifestHash === manifestHash ? reproducible : undefined
  try {
    saveState(file, root, {
      manifestHash,
      listing: listing.state(),
      stats: r?.stats,
      untrusted: r?.untrusted,
    })
  } catch {
    // Only a cache: the next process lists and stats as if there were none.
  }
}

/** `latest`: the newest snapshot row of the root, as the store has it now. */
export function createChangeSource(
  opts: SnapshotterOptions,
  latest: () => SnapshotRow | undefined,
): ChangeSource {
  const { root } = opts
  const maxFileBytes = opts.maxFileBytes ?? 64 * 1024 * 1024
  // A name the listing would drop (see listedPaths) counts as ignored when a directory is re-read.
  const ignored = opts.isIgnored
  const isIgnored = ignored && ((rel: string) => !isSafeRelative(rel) || ignored(rel))
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
  // A state this big means a big stat is coming: start its threads while the session sets up.
  if (opts.stateFile && (fileSize(opts.stateFile) ?? 0) >= WARM_STATE_BYTES) warmStatHelpers()
  // Whether the state file was looked at (once, before the first snapshot).
  let restored = false
  // What `restore` started for the first snapshot, until it takes them.
  let pending: { startedAt: number; prefetching?: Promise<void>; early?: EarlyStats } | undefined
  // Snapshots this snapshotter took by stat'ing (the first one starts no watch).
  let taken = 0
  // What the newest snapshot was taken from (`lastListing`).
  let lastTaken: TakenListing | undefined

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
    if (directories) listing = recordListing(root, { paths, directories, listedAt }, isIgnored)
    return { paths, relisted: true }
  }

  /** Leaves the listing and, when they vouch for the manifest, the stats for the next process. */
  function persist(manifestHash: string): void {
    unsaved = undefined
    if (opts.stateFile && listing) saveListing(opts.stateFile, root, { listing, manifestHash, reproducible })
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
    const saved = listing ? undefined : restoreSaved(opts, latest(), isIgnored)
    if (saved) ({ listing, reproducible } = saved)
    const prefetched = saved?.early
    const early = reproducible && {
      paths: reproducible.paths,
      stats: prefetched?.stats ?? statFiles(root, reproducible.paths),
    }
    const startedAt = (early && prefetched?.startedAt) || Date.now()
    pending = { startedAt, prefetching: listing?.prefetch(), early }
  }

  /** Changes as file events name them, since the snapshot `since` describes. */
  function fromEvents(
    named: ReadonlySet<string>,
    since: { paths: readonly string[] },
    paths: readonly string[],
    previous: SnapshotRow,
  ): Changes {
    if (named.size === 0 && paths === since.paths) {
      // Nothing named and the same listing: the previous manifest as it is, without loading it
      // (~0.3 s for 70,000 files the first time in a process).
      tracked = { paths, manifestHash: previous.manifest_hash }
      return { kind: 'none', how: 'events', previous, skipped: [], save: false }
    }
    const base = reproducible?.manifestHash === previous.manifest_hash ? reproducible : undefined
    reproducible = undefined
    return { kind: 'some', how: 'events', previous, named, listedBefore: since.paths, paths, base }
  }

  /** Changes as stats show them, against what the last snapshot's stats vouched for. */
  function fromStats(
    paths: readonly string[],
    stats: Float64Array,
    previous: SnapshotRow | undefined,
    startedAt: number,
  ): Changes {
    const last = reproducible
    reproducible = undefined
    if (!last || !previous || last.manifestHash !== previous.manifest_hash)
      return { kind: 'all', previous, paths, stats }
    const v = verify(last, { paths, stats }, root, startedAt)
    if (v.changed.length === 0 && last.paths === paths) {
      // An unchanged tree: what the full capture would conclude, without the per-file work.
      reproducible = { ...last, untrusted: v.untrusted }
      if (tracker?.watching) tracked = { paths, manifestHash: last.manifestHash }
      if (lastTaken) lastTaken.unchangedSince = last.manifestHash
      const skipped = skippedByStat(paths, stats, maxFileBytes)
      // Entries the content vouched for and that are now old enough: the next process need not read them.
      return { kind: 'none', how: 'stat', previous, skipped, save: v.untrusted.size < last.untrusted.size }
    }
    if (v.changed.length > PARTIAL_MAX_FILES) return { kind: 'all', previous, paths, stats }
    // A few files differ from what the stats vouch for: capture those alone.
    const base = { paths, stats, untrusted: v.untrusted }
    return {
      kind: 'some',
      how: 'stat',
      previous,
      named: new Set(v.changed),
      listedBefore: last.paths,
      paths,
      base,
    }
  }

  async function plan(calledAt: number): Promise<SnapshotPlan> {
    const report = await tracker?.collect()
    restore()
    const { early, prefetching, startedAt: startedEarly = calledAt } = pending ?? {}
    pending = undefined
    // Stats started ahead (`prepare`, the CLI's entry) show the tree as of then.
    const startedAt = Math.min(calledAt, startedEarly)
    lastTaken = undefined
    const { paths, relisted } = await currentPaths(prefetching)
    lastTaken = { paths }
    const previous = latest()
    const since = tracked
    tracked = undefined
    const eventsHold = report?.trusted && !relisted && tracker?.watching
    if (eventsHold && since && previous && since.manifestHash === previous.manifest_hash)
      return { startedAt, changes: fromEvents(report.paths, since, paths, previous) }
    // Watch before the stats: a change after them is an event for the next snapshot. Not
    // for the first one (a session's baseline): a session that changes nothing never
    // needs the events, and a watch per directory costs a big tree ~0.1 s to set up
    // and again to close. The first checkpoint stats everything and starts watching.
    if (tracker && listing && taken > 0 && (relisted || !tracker.watching)) tracker.watch(listing.directories)
    taken++
    const stats = await (early?.paths === paths ? early.stats : statFiles(root, paths))
    lastTaken = { paths, stats }
    return { startedAt, changes: fromStats(paths, stats, previous, startedAt) }
  }

  return {
    plan,

    storedUnchanged(changes) {
      if (changes.save) persist(changes.previous.manifest_hash)
    },

    storedSome(changes, manifestHash, captured) {
      const { paths, base } = changes
      if (tracker?.watching) tracked = { paths, manifestHash }
      if (base && captured) reproducible = withCaptured(base, paths, captured, manifestHash)
      // Saved when the snapshotter closes: a step's checkpoint should not write the whole state.
      unsaved = manifestHash
    },

    storedAll(changes, manifestHash, racy) {
      const { paths, stats } = changes
      if (racy) reproducible = { paths, stats, manifestHash, untrusted: untrustedOf(paths, racy) }
      if (tracker?.watching) tracked = { paths, manifestHash }
      persist(manifestHash)
    },

    forget() {
      reproducible = undefined
      tracked = undefined
    },

    prepare: restore,

    lastListing: () => (listing ? lastTaken : undefined),

    close() {
      if (unsaved) persist(unsaved)
      tracker?.close()
      tracked = undefined
    },
  }
}
