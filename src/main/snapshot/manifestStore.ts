import type { SnapshotFile } from '../store/types'
import { BlobError, sha256, type BlobStore } from './blobs'
import {
  applyManifestDeltas,
  decodeManifest,
  encodeManifest,
  encodeManifestDelta,
  MAX_DELTA_DEPTH,
} from './manifest'

/**
 * Manifests in the blob table, read and written whole whatever their stored
 * kind: a full manifest, or a delta on the manifest before it (manifest.ts).
 * Decoded manifests are kept for the few snapshots in use (baseline, head, the
 * present), so a checkpoint compares against the previous one without reading it.
 */

export interface LoadedManifest {
  /** Sorted by path. Shared: never modify. */
  readonly files: readonly SnapshotFile[]
  /** 0 for a full manifest, else how many deltas lie on top of it. */
  readonly depth: number
  /** Built on first use. */
  readonly byPath: ReadonlyMap<string, SnapshotFile>
}

/** What a new manifest changes in its base, each list sorted by path. */
export interface ManifestChange {
  base: string
  set: readonly SnapshotFile[]
  removed: readonly string[]
}

export interface ManifestStore {
  load(hash: string): LoadedManifest
  /**
   * Stores `files` and returns the manifest's hash: as a delta on `change.base`
   * when that is small and the chain short, else whole. Call inside a transaction
   * with the snapshot row that names it.
   */
  put(files: readonly SnapshotFile[], change?: ManifestChange): string
}

/** Chains of more than this cannot be ours: the store is corrupt (or a loop was planted). */
const CHAIN_LIMIT = MAX_DELTA_DEPTH * 4

function loaded(files: readonly SnapshotFile[], depth: number): LoadedManifest {
  let byPath: Map<string, SnapshotFile> | undefined
  return {
    files,
    depth,
    get byPath() {
      return (byPath ??= new Map(files.map((f) => [f.path, f])))
    },
  }
}

export function createManifestStore(blobs: BlobStore, keep = 4): ManifestStore {
  const cache = new Map<string, LoadedManifest>()

  function remember(hash: string, m: LoadedManifest): LoadedManifest {
    cache.delete(hash) // re-inserted as the most recent
    cache.set(hash, m)
    while (cache.size > keep) cache.delete(cache.keys().next().value!)
    return m
  }

  function load(hash: string): LoadedManifest {
    const hit = cache.get(hash)
    if (hit) return remember(hash, hit)
    // Walk down to a full manifest (or one already decoded), then apply the deltas in one pass.
    const deltas: Array<{ set: SnapshotFile[]; removed: string[] }> = []
    let base: LoadedManifest | undefined
    for (let at = hash; !base;) {
      const known = cache.get(at)
      if (known) {
        base = known
        break
      }
      const m = decodeManifest(blobs.get(at, 'a snapshot manifest'))
      if (m.kind === 'full') {
        base = loaded(m.files, 0)
        break
      }
      deltas.push(m)
      if (deltas.length > CHAIN_LIMIT)
        throw new BlobError(`Snapshot manifest ${hash} is corrupt: its chain of deltas does not end.`)
      at = m.base
    }
    if (deltas.length === 0) return remember(hash, base)
    deltas.reverse()
    return remember(hash, loaded(applyManifestDeltas(base.files, deltas), base.depth + deltas.length))
  }

  function put(files: readonly SnapshotFile[], change?: ManifestChange): string {
    const base = change && load(change.base)
    const small = change && (change.set.length + change.removed.length) * 2 <= files.length
    const asDelta = base && small && base.depth < MAX_DELTA_DEPTH
    const bytes = asDelta
      ? encodeManifestDelta(change.base, change.set, change.removed)
      : encodeManifest(files)
    const hash = sha256(bytes)
    blobs.put(hash, bytes)
    remember(hash, loaded(files, asDelta ? base.depth + 1 : 0))
    return hash
  }

  return { load, put }
}
