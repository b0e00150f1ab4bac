import type { SnapshotFile, SnapshotInfo } from '../store/types'
import type { BaselineReader } from './baseline-reader'
import type { SnapshotChanges } from './manifest'
import type { LoadedManifest } from './manifestStore'

/** What a snapshotter is given and what it offers (its code: snapshotter.ts, snapshotReads.ts). */

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
   * `() => listUnignoredDirectories(root, (rel) => sandbox.isIgnored(rel, true))`.
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

/** The files a snapshot was taken from (Snapshotter.lastListing). */
export interface TakenListing {
  /** Sorted, as `listFiles` gave them, less paths that would leave the root. */
  paths: readonly string[]
  /** STAT_FIELDS per path (statFiles.ts) as the snapshot found them; absent when it took no stats. */
  stats?: Float64Array
  /** Every folder the listing descended into ('' the root; none ignored), when it is kept for reuse. */
  directories?: readonly string[]
  /**
   * The snapshot's manifest hash when it found the tree as an earlier snapshot left
   * it: its listing kept, every file with the stats saved with that manifest. Equal
   * values in two processes: the same files with the same content.
   */
  unchangedSince?: string
}

export interface Snapshotter {
  readonly root: string
  takeSnapshot(opts: { sessionId: string | null; label?: string }): Promise<TakeSnapshotResult>
  getSnapshot(snapshotId: number): SnapshotInfo | undefined
  /** Snapshots of this root, oldest first; optionally only one session's. */
  listSnapshots(opts?: { sessionId?: string }): SnapshotInfo[]
  /** Whether this root has any snapshot yet (its next one is its first, a read of the whole tree). */
  hasSnapshots(): boolean
  getManifest(snapshotId: number): SnapshotFile[]
  /** The same, shared with the snapshotter's cache (no copy): never modify it. */
  readManifest(snapshotId: number): LoadedManifest
  /** Raw bytes of a blob, verified against its hash; throws a clear error when missing or corrupt. */
  readBlob(hash: string): Buffer
  /**
   * Stores bytes that are in no snapshot under their sha256 (a file a command changed under an
   * ignored folder: snapshot/ignoredFolders.ts). The events that name the hash keep it.
   */
  keepBlob(hash: string, raw: Buffer): void
  /** The file's bytes in that snapshot, or null when it was not in it. */
  readFileAt(snapshotId: number, path: string): Buffer | null
  /** What changed from one snapshot to another (paths sorted). */
  diffSnapshots(fromId: number, toId: number): SnapshotChanges
  baselineReader(snapshotId: number): BaselineReader
  /**
   * What the newest snapshot of this snapshotter was taken from, while its listing
   * is kept (with `listDirectories`); undefined otherwise. What a code index checks
   * itself against instead of listing and stat'ing the tree again.
   */
  lastListing(): TakenListing | undefined
  /**
   * For a process about to take its first snapshot: reads what an earlier process
   * left (with `stateFile`) and starts the stats it vouches with on helper threads,
   * so that they run while the caller sets up. The next snapshot uses them, and so
   * shows the tree as of this call: only for a snapshot that follows within moments
   * (a session's baseline). Does nothing after the first call or snapshot.
   */
  prepare(): void
  /**
   * A change to the tree may come (a command is about to run): starts the file events (done
   * when this resolves) and checks the tree against the newest snapshot in the background, so
   * the checkpoint after the change need only look at what the events name. Does nothing
   * before the first snapshot, or once watching. Never rejects.
   */
  expectChanges(): Promise<void>
  /** Stops watching (with `watch`); later snapshots stat every file. */
  close(): void
}
