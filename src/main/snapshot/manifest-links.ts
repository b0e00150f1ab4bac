import type { ManifestReader } from '../store/purge'
import { snapshotTablesOf } from '../store/snapshot-tables'
import type { Store } from '../store/types'
import { createBlobStore } from './blobs'
import { decodeManifest } from './manifest'

/**
 * What a purge (store/purge.ts) needs of the manifest format: the hashes a stored manifest names
 * and the one it builds on. Passed in by the caller, so the store does not import the snapshotter.
 */
export function storedManifestReader(store: Store): ManifestReader {
  const blobs = createBlobStore(snapshotTablesOf(store).blobs)
  return (hash) => {
    if (!blobs.has(hash)) return undefined
    const d = decodeManifest(blobs.get(hash, 'a snapshot manifest'))
    return d.kind === 'full'
      ? { files: d.files.map((f) => f.hash) }
      : { files: d.set.map((f) => f.hash), base: d.base }
  }
}
