import { toSnapshotInfo, type SnapshotInfo, type SnapshotRow } from '../store/records'
import type { SnapshotTable } from '../store/snapshot-tables'
import type { BlobStore } from './blobs'
import { diffManifests } from './manifest'
import type { ManifestStore } from './manifestStore'
import type { Snapshotter } from './snapshotTypes'

/**
 * The read side of a snapshotter: its rows in `snapshots` and what a stored
 * snapshot holds. Taking snapshots (snapshotter.ts) only adds rows; everything
 * here reads what is already stored, whoever stored it.
 */

export type { SnapshotRow } from '../store/records'

export type SnapshotReads = Pick<
  Snapshotter,
  | 'getSnapshot'
  | 'listSnapshots'
  | 'hasSnapshots'
  | 'getManifest'
  | 'readManifest'
  | 'readBlob'
  | 'readFileAt'
  | 'diffSnapshots'
  | 'baselineReader'
>

export interface SnapshotRows {
  /** The newest snapshot of the root, if any. */
  latest(): SnapshotRow | undefined
  insert(r: Omit<SnapshotInfo, 'id' | 'root' | 'label'> & { label?: string }): SnapshotInfo
  reads: SnapshotReads
}

export function createSnapshotRows(
  root: string,
  table: SnapshotTable,
  blobs: BlobStore,
  manifests: ManifestStore,
): SnapshotRows {
  const loadManifest = (hash: string) => manifests.load(hash)

  function snapshotRow(snapshotId: number): SnapshotRow {
    const row = table.byId(snapshotId)
    if (!row) throw new Error(`No snapshot with id ${snapshotId}.`)
    return row
  }

  const reads: SnapshotReads = {
    getSnapshot(snapshotId) {
      const row = table.byId(snapshotId)
      return row && toSnapshotInfo(row)
    },

    listSnapshots(o = {}) {
      return table.list(o.sessionId).map(toSnapshotInfo)
    },

    hasSnapshots: () => table.any(),

    getManifest(snapshotId) {
      return loadManifest(snapshotRow(snapshotId).manifest_hash).files.slice()
    },

    readManifest(snapshotId) {
      return loadManifest(snapshotRow(snapshotId).manifest_hash)
    },

    readBlob(hash) {
      return blobs.get(hash)
    },

    readFileAt(snapshotId, path) {
      const entry = loadManifest(snapshotRow(snapshotId).manifest_hash).byPath.get(path)
      return entry ? blobs.get(entry.hash, path) : null
    },

    diffSnapshots(fromId, toId) {
      const from = loadManifest(snapshotRow(fromId).manifest_hash).byPath
      return diffManifests(from, loadManifest(snapshotRow(toId).manifest_hash).files)
    },

    baselineReader(snapshotId) {
      const row = snapshotRow(snapshotId)
      let files: Map<string, { hash: string; size: number }> | undefined
      return {
        info: () => ({
          snapshotId: row.id,
          createdAt: row.created_at,
          fileCount: row.file_count,
          totalBytes: row.total_bytes,
        }),
        files() {
          files ??= new Map(
            loadManifest(row.manifest_hash).files.map((f) => [f.path, { hash: f.hash, size: f.size }]),
          )
          return new Map(files)
        },
        readOriginal: (path) => reads.readFileAt(row.id, path),
      }
    },
  }

  return {
    latest: () => table.latest(),
    insert(r) {
      const row = { ...r, root, label: r.label ?? null }
      return { id: table.insert(row), ...row }
    },
    reads,
  }
}
