import fs from 'node:fs'
import type { SnapshotRow } from '../store/snapshot-tables'
import { isSafeRelative, listedPaths, untrustedOf } from './candidates'
import type { Capture } from './capture'
import { createChangeTracker, type ChangeReport } from './changeTracker'
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
  /** Snapshotter.expectChanges, run in the snapshots' queue: watching when it returns. */
  watchAhead(): { checked: Promise<void> } | undefined
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
  | {
      listing: ReusableListing
      reproducible: Reproducible | undefined
      early: Prefetched | undefined
      /** With `reproducible`: its paths as the file holds them (statFiles' `encoded`). */
      encodedPaths: Uint8Array | undefined
    }
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
  return { listing, reproducible, early, encodedPaths: reproducible && saved.encodedPaths }
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
  return new TreeChangeSource(opts, latest)
}

/**
 * What the source keeps between snapshots: the listing it last took (while its
 * directories are unchanged), what the last snapshot's stats vouch for, and the
 * file events since it.
 */
class TreeChangeSource implements ChangeSource {
  private readonly root: string
  private readonly maxFileBytes: number
  // A name the listing would drop (see listedPaths) counts as ignored when a directory is re-read.
  private readonly isIgnored: ((rel: string) => boolean) | undefined
  // The last listing, while the directories it came from are unchanged.
  private listing: ReusableListing | undefined
  // The last snapshot, when taking it again from the same listing and the same
  // stats is bound to give the same manifest: no file was skipped for a reason its
  // stat does not show (a too-big or special file is skipped again by its stat) or
  // racily clean, so each captured file has a clean stat-cache entry matching its stat.
  // Racily clean files are vouched for by their content instead (reproduce.ts).
  private reproducible: Reproducible | undefined
  // A snapshot whose state is not saved yet (partial captures save it at `close`).
  private unsaved: string | undefined
  // With `watch`: file events since the last snapshot, and what that snapshot was
  // taken from, so the next one need only re-capture the files events name.
  private readonly tracker: ReturnType<typeof createChangeTracker> | undefined
  private tracked: { paths: readonly string[]; manifestHash: string } | undefined
  // Whether the state file was looked at (once, before the first snapshot).
  private restored = false
  // What `restore` started for the first snapshot, until it takes them.
  private pending: { startedAt: number; prefetching?: Promise<void>; early?: EarlyStats } | undefined
  // Snapshots this source planned by stat'ing (the first one starts no watch).
  private taken = 0
  // What the newest snapshot was taken from (`lastListing`).
  private lastTaken: TakenListing | undefined
  // The listing was last checked (listed, or its folders stat'ed) while the tracker watched its
  // folders: any name that came or went since is an event (`vouchedListing`).
  private listedUnderWatch = false

  constructor(
    private readonly opts: SnapshotterOptions,
    private readonly latest: () => SnapshotRow | undefined,
  ) {
    this.root = opts.root
    this.maxFileBytes = opts.maxFileBytes ?? 64 * 1024 * 1024
    const ignored = opts.isIgnored
    this.isIgnored = ignored && ((rel: string) => !isSafeRelative(rel) || ignored(rel))
    this.tracker = opts.watch && opts.listDirectories ? createChangeTracker(opts.root) : undefined
    // A state this big means a big stat is coming: start its threads while the session sets up.
    if (opts.stateFile && (fileSize(opts.stateFile) ?? 0) >= WARM_STATE_BYTES) warmStatHelpers()
  }

  async plan(calledAt: number): Promise<SnapshotPlan> {
    const report = await this.tracker?.collect()
    this.restore()
    const { early, prefetching, startedAt: startedEarly = calledAt } = this.pending ?? {}
    this.pending = undefined
    // Stats started ahead (`prepare`, the CLI's entry) show the tree as of then.
    const startedAt = Math.min(calledAt, startedEarly)
    this.lastTaken = undefined
    const watchedBefore = this.tracker?.watching === true
    const vouched = this.vouchedListing(report)
    const { paths, relisted } = vouched
      ? { paths: vouched, relisted: false }
      : await this.currentPaths(prefetching)
    this.listedUnderWatch = watchedBefore && this.tracker?.watching === true
    this.lastTaken = { paths }
    const previous = this.latest()
    const since = this.tracked
    this.tracked = undefined
    const { tracker, listing } = this
    const eventsHold = report?.trusted && !relisted && tracker?.watching
    if (eventsHold && since && previous && since.manifestHash === previous.manifest_hash)
      return { startedAt, changes: this.fromEvents(report.paths, since, paths, previous) }
    // Watch before the stats: a change after them is an event for the next snapshot. Not
    // for the first one (a session's baseline): a session that changes nothing never
    // needs the events, and a watch per directory costs a big tree ~0.1 s to set up
    // and again to close. The first checkpoint stats everything and starts watching.
    if (tracker && listing && this.taken > 0 && (relisted || !tracker.watching)) {
      tracker.watch(listing.directories)
      this.listedUnderWatch = false // a name that came between the listing and the watch is no event
    }
    this.taken++
    // Nothing else to do meanwhile: this thread stats a share too.
    const stats = await (early?.paths === paths ? early.stats : statFiles(this.root, paths, { shared: true }))
    this.lastTaken = { paths, stats }
    return { startedAt, changes: this.fromStats(paths, stats, previous, startedAt) }
  }

  storedUnchanged(changes: Extract<Changes, { kind: 'none' }>): void {
    if (changes.save) this.persist(changes.previous.manifest_hash)
  }

  storedSome(
    changes: Extract<Changes, { kind: 'some' }>,
    manifestHash: string,
    captured: ReadonlyMap<string, { st: FileStat; hash: string }> | undefined,
  ): void {
    const { paths, base } = changes
    if (this.tracker?.watching) this.tracked = { paths, manifestHash }
    if (base && captured) this.reproducible = withCaptured(base, paths, captured, manifestHash)
    // Saved when the snapshotter closes: a step's checkpoint should not write the whole state.
    this.unsaved = manifestHash
  }

  storedAll(
    changes: Extract<Changes, { kind: 'all' }>,
    manifestHash: string,
    racy: Capture['racy'] | undefined,
  ): void {
    const { paths, stats } = changes
    if (racy) this.reproducible = { paths, stats, manifestHash, untrusted: untrustedOf(paths, racy) }
    if (this.tracker?.watching) this.tracked = { paths, manifestHash }
    this.persist(manifestHash)
  }

  forget(): void {
    this.reproducible = undefined
    this.tracked = undefined
  }

  prepare(): void {
    this.restore()
  }

  /**
   * Starts the file events before a change rather than at the checkpoint after it, and checks
   * the tree against the newest snapshot meanwhile (`checked`): when it is unchanged, that
   * snapshot plus the events since the watch began is the tree, so the checkpoint goes by events
   * instead of stat'ing every file (~0.5 s on a 72,000-file tree) after the command. The order
   * is what makes it sound: watch, then list, then stat. A change before the watch shows in the
   * listing or the stats (and then nothing is vouched for); one after it is an event.
   */
  watchAhead(): { checked: Promise<void> } | undefined {
    const { tracker, listing } = this
    const last = this.reproducible
    const previous = this.latest()
    // Before the first snapshot there is nothing to vouch from; once watching, nothing to start.
    if (!tracker || tracker.watching || !listing || !last || !previous || this.taken === 0) return
    if (last.manifestHash !== previous.manifest_hash) return
    const startedAt = (this.opts.now ?? Date.now)()
    tracker.watch(listing.directories)
    if (!tracker.watching) return
    const paths = listing.refresh(startedAt)
    // Checked after the watch began: from here on, a name that comes or goes is an event.
    this.listedUnderWatch = paths !== undefined
    // Names came or went since the last snapshot: its checkpoint lists and stats as before.
    if (paths !== last.paths) return
    const check = async () => {
      // On the low-priority helpers: the ignored-folder record and the command come first.
      const stats = await statFiles(this.root, paths, { background: true })
      // fromStats vouches (`tracked`) only for an unchanged tree; otherwise the checkpoint
      // compares with the last snapshot's stats, as it would have without this.
      if (this.fromStats(paths, stats, previous, startedAt).kind !== 'none') this.reproducible = last
    }
    return { checked: check() }
  }

  lastListing(): TakenListing | undefined {
    const { listing, lastTaken } = this
    if (!listing || !lastTaken) return undefined
    return listing.paths === lastTaken.paths ? { ...lastTaken, directories: listing.directories } : lastTaken
  }

  close(): void {
    if (this.unsaved) this.persist(this.unsaved)
    this.tracker?.close()
    this.tracked = undefined
  }

  /**
   * The listing as it stands, when the file events vouch for it: it was last checked while the
   * tracker watched every one of its folders, the watch has stayed whole since, and no event
   * came. A name that comes or goes, or an ignore file edited, is an event in a watched folder,
   * so the check's stat of every folder and ignore file (~3,000 folders on a 72,000-file tree)
   * would find nothing. A command that changed nothing the listing shows costs no stat.
   */
  private vouchedListing(report: ChangeReport | undefined): readonly string[] | undefined {
    if (!report?.trusted || report.paths.size > 0 || !this.listedUnderWatch || !this.tracker?.watching)
      return undefined
    return this.listing?.paths
  }

  /** The files to capture: the last listing when it still holds, else a new one. */
  private async currentPaths(
    prefetching?: Promise<void>,
  ): Promise<{ paths: readonly string[]; relisted: boolean }> {
    const { opts } = this
    const now = opts.now ?? Date.now
    await prefetching?.catch(() => undefined) // without it, the refresh stats on this thread
    const kept = this.listing?.refresh(now())
    if (kept) return { paths: kept, relisted: false }
    this.listing = undefined
    const listedAt = now()
    const [listed, directories] = await Promise.all([opts.listFiles(), opts.listDirectories?.()])
    const paths = listedPaths(listed)
    if (directories) this.listing = recordListing(this.root, { paths, directories, listedAt }, this.isIgnored)
    return { paths, relisted: true }
  }

  /** Leaves the listing and, when they vouch for the manifest, the stats for the next process. */
  private persist(manifestHash: string): void {
    this.unsaved = undefined
    const { stateFile } = this.opts
    if (stateFile && this.listing)
      saveListing(stateFile, this.root, {
        listing: this.listing,
        manifestHash,
        reproducible: this.reproducible,
      })
  }

  /**
   * Once, in a new process: what the state file vouches for, and its checks started
   * on helper threads — the listing's directories, then the stats — while this thread
   * goes on. The first snapshot uses the stats when the listing holds; later ones may
   * need no stats at all.
   */
  private restore(): void {
    if (this.restored) return
    this.restored = true
    // Stats the CLI started before this program had loaded (earlyState.ts) are these.
    const saved = this.listing ? undefined : restoreSaved(this.opts, this.latest(), this.isIgnored)
    if (saved) ({ listing: this.listing, reproducible: this.reproducible } = saved)
    const prefetched = saved?.early
    const reproducible = this.reproducible
    // Not prefetched (the app's and serve's processes): the helpers get the paths as the file's
    // bytes, as the CLI's prefetch sends them, instead of a clone of every string.
    const early = reproducible && {
      paths: reproducible.paths,
      stats: prefetched?.stats ?? statFiles(this.root, reproducible.paths, { encoded: saved?.encodedPaths }),
    }
    const startedAt = (early && prefetched?.startedAt) || Date.now()
    this.pending = { startedAt, prefetching: this.listing?.prefetch(), early }
  }

  /** Changes as file events name them, since the snapshot `since` describes. */
  private fromEvents(
    named: ReadonlySet<string>,
    since: { paths: readonly string[] },
    paths: readonly string[],
    previous: SnapshotRow,
  ): Changes {
    if (named.size === 0 && paths === since.paths) {
      // Nothing named and the same listing: the previous manifest as it is, without loading it
      // (~0.3 s for 70,000 files the first time in a process).
      this.tracked = { paths, manifestHash: previous.manifest_hash }
      return { kind: 'none', how: 'events', previous, skipped: [], save: false }
    }
    const base = this.reproducible?.manifestHash === previous.manifest_hash ? this.reproducible : undefined
    this.reproducible = undefined
    return { kind: 'some', how: 'events', previous, named, listedBefore: since.paths, paths, base }
  }

  /** Changes as stats show them, against what the last snapshot's stats vouched for. */
  private fromStats(
    paths: readonly string[],
    stats: Float64Array,
    previous: SnapshotRow | undefined,
    startedAt: number,
  ): Changes {
    const last = this.reproducible
    this.reproducible = undefined
    if (!last || !previous || last.manifestHash !== previous.manifest_hash)
      return { kind: 'all', previous, paths, stats }
    const v = verify(last, { paths, stats }, this.root, startedAt)
    if (v.changed.length === 0 && last.paths === paths) {
      // An unchanged tree: what the full capture would conclude, without the per-file work.
      this.reproducible = { ...last, untrusted: v.untrusted }
      if (this.tracker?.watching) this.tracked = { paths, manifestHash: last.manifestHash }
      if (this.lastTaken) this.lastTaken.unchangedSince = last.manifestHash
      const skipped = skippedByStat(paths, stats, this.maxFileBytes)
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
}
