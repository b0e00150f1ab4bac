import { pushAll } from '../../shared/arrays'
import type { SnapshotRow, SnapshotTables } from '../store/snapshot-tables'
import type { SnapshotFile, SnapshotInfo } from '../store/types'
import type { BlobStore } from './blobs'
import { candidatePaths, notCaptured } from './candidates'
import { captureAll } from './captureAll'
import { createCapture, statOf, type Capture } from './capture'
import type { Changes } from './changeSource'
import { applyManifestDeltas } from './manifest'
import type { ManifestStore } from './manifestStore'
import type { SnapshotRows } from './snapshotReads'
import { isListed } from './sortedPaths'
import { loadStatCache, type FileStat, type StatCache } from './statCache'

/**
 * A snapshot's capture, given what may have changed (changeSource.ts): the files to
 * look at are read or vouched for by the stat cache, their content stored once, and
 * the new manifest stored with its snapshot row. It decides nothing about which files
 * may have changed; that is the change source's.
 */

export interface SnapshotMeta {
  sessionId: string | null
  label: string | undefined
  createdAt: number
}

/** A stored capture, and whether the stats it was taken with vouch for its manifest. */
export interface Captured {
  info: SnapshotInfo
  c: Capture
}

export interface SnapshotCapture {
  /** The previous snapshot again: a new row naming its manifest. */
  unchanged(previous: SnapshotRow, meta: SnapshotMeta): SnapshotInfo
  /** The files `changes` names, on top of the previous manifest. */
  some(
    changes: Extract<Changes, { kind: 'some' }>,
    meta: SnapshotMeta,
  ): Captured & { captured: Map<string, { st: FileStat; hash: string }> }
  /** Every listed file, in slices. `vouched`: no file escaped what its stat shows. */
  all(
    changes: Extract<Changes, { kind: 'all' }>,
    meta: SnapshotMeta,
  ): Promise<Captured & { vouched: boolean }>
  /** After a failed snapshot: what is kept in memory may name blobs that were never stored. */
  reset(): void
}

/**
 * Captures each of `candidates` into `c` (inside a transaction): one the listing no longer
 * holds, or that cannot be captured, is deleted if the previous snapshot had it. Returns the
 * stat and hash of each file captured.
 */
function captureNamed(
  c: Capture,
  candidates: Iterable<string>,
  at: { root: string; paths: readonly string[]; cache: StatCache; prev: ReadonlyMap<string, SnapshotFile> },
): Map<string, { st: FileStat; hash: string }> {
  const captured = new Map<string, { st: FileStat; hash: string }>()
  for (const p of candidates) {
    const st = isListed(at.paths, p) ? statOf(`${at.root}/${p}`) : undefined
    const f = st && c.file(p, st)
    if (f && typeof st === 'object') captured.set(p, { st, hash: f.hash })
    if (f || !at.prev.has(p)) continue
    c.changed.deleted.push(p)
    at.cache.forget(p)
  }
  return captured
}

/** The records a delta manifest on the previous snapshot stores for this capture. */
const delta = (c: Capture) => ({ set: c.set, removed: c.changed.deleted })

/** Where captures read from and store to. */
export interface SnapshotCaptureSetup {
  root: string
  maxFileBytes: number
  tables: SnapshotTables
  blobs: BlobStore
  manifests: ManifestStore
  rows: SnapshotRows
}

export function createSnapshotCapture(s: SnapshotCaptureSetup): SnapshotCapture {
  const { root, maxFileBytes, tables, blobs, manifests, rows } = s
  const statRows = tables.statCache(root)
  let statCache: StatCache | undefined
  // Until a full capture loads `statCache`: one that writes what it learns, having read nothing.
  let unloadedCache: StatCache | undefined

  /** For captures of a few files: the stat cache without reading its rows (see loadStatCache). */
  const partialCache = (): StatCache => (unloadedCache ??= loadStatCache(statRows, { unloaded: true }))

  /** Stores the snapshot row (and its manifest, unless it is the previous one). */
  function store(
    c: Capture,
    files: readonly SnapshotFile[],
    previous: SnapshotRow | undefined,
    meta: SnapshotMeta,
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
      return rows.insert({ ...meta, manifestHash, fileCount: files.length, totalBytes })
    })()
    cache.committed()
    return info
  }

  return {
    unchanged: (previous, meta) =>
      rows.insert({
        ...meta,
        manifestHash: previous.manifest_hash,
        fileCount: previous.file_count,
        totalBytes: previous.total_bytes,
      }),

    some({ named, listedBefore, paths, previous }, meta) {
      const prev = manifests.load(previous.manifest_hash)
      const cache = statCache ?? partialCache()
      const c = createCapture({
        root,
        blobs,
        cache,
        prev: prev.byPath,
        startedAt: meta.createdAt,
        maxFileBytes,
      })
      const captured = tables.transaction(() =>
        captureNamed(c, candidatePaths(named, listedBefore, paths), {
          root,
          paths,
          cache,
          prev: prev.byPath,
        }),
      )()
      const files = applyManifestDeltas(prev.files, [delta(c)])
      return { info: store(c, files, previous, meta), c, captured }
    },

    async all({ paths, stats, previous }, meta) {
      const cache = (statCache ??= loadStatCache(statRows))
      const prevManifest = previous && manifests.load(previous.manifest_hash)
      const prev = prevManifest?.byPath ?? new Map<string, SnapshotFile>()
      const c = createCapture({ root, blobs, cache, prev, startedAt: meta.createdAt, maxFileBytes })
      const { files, notStated } = await captureAll({ ...s, paths, stats, capture: c, cache })
      if (c.cached !== cache.size) cache.retain(new Set(files.map((f) => f.path)))
      // Paths of the previous manifest that are not captured now (sorted, as the manifest is).
      if (prevManifest && c.kept < prevManifest.files.length)
        pushAll(c.changed.deleted, notCaptured(prevManifest.files, files))
      const info = store(c, files, previous, meta)
      return { info, c, vouched: c.unstableSkips === 0 && c.notReproducible === 0 && notStated === 0 }
    },

    reset() {
      statCache = undefined
      unloadedCache = undefined
    },
  }
}
