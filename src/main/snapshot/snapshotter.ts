import type { SnapshotTables } from '../store/snapshot-tables'
import { createBlobStore } from './blobs'
import { createSnapshotCapture, type SnapshotMeta } from './captureChanges'
import { createChangeSource } from './changeSource'
import { createManifestStore } from './manifestStore'
import { createSnapshotRows } from './snapshotReads'
import type { Snapshotter, SnapshotterOptions, TakeSnapshotResult } from './snapshotTypes'

export { diffManifests, type SnapshotChanges } from './manifest'

export type { Snapshotter, SnapshotterOptions, TakeSnapshotResult } from './snapshotTypes'

/**
 * A snapshotter: a change source (changeSource.ts: saved state, file events, listing
 * and stats) tells each snapshot what may have changed; the capture (captureChanges.ts)
 * stores what did; the read side (snapshotReads.ts) reads what is stored. Snapshots
 * run one at a time.
 */
export function createSnapshotter(tables: SnapshotTables, opts: SnapshotterOptions): Snapshotter {
  const { root } = opts
  const blobs = createBlobStore(tables.blobs)
  // Decoded manifests by hash; a few recent ones are enough (baseline + latest).
  const manifests = createManifestStore(blobs)
  const rows = createSnapshotRows(root, tables.snapshots(root), blobs, manifests)
  const source = createChangeSource(opts, rows.latest)
  const maxFileBytes = opts.maxFileBytes ?? 64 * 1024 * 1024
  const capture = createSnapshotCapture({ root, maxFileBytes, tables, blobs, manifests, rows })
  let queue: Promise<unknown> = Promise.resolve()

  async function take(sessionId: string | null, label: string | undefined): Promise<TakeSnapshotResult> {
    const { startedAt, changes } = await source.plan(Date.now())
    const meta: SnapshotMeta = { sessionId, label, createdAt: startedAt }
    switch (changes.kind) {
      case 'none': {
        const info = capture.unchanged(changes.previous, meta)
        source.storedUnchanged(changes)
        const changed = { added: [], modified: [], deleted: [] }
        return { info, changed, skipped: changes.skipped, how: changes.how }
      }
      case 'some': {
        const { info, c, captured } = capture.some(changes, meta)
        const vouched = c.unstableSkips === 0 && c.notReproducible === 0
        source.storedSome(changes, info.manifestHash, vouched ? captured : undefined)
        return { info, changed: c.changed, skipped: c.skipped, how: changes.how }
      }
      case 'all': {
        const { info, c, vouched } = await capture.all(changes, meta)
        source.storedAll(changes, info.manifestHash, vouched ? c.racy : undefined)
        return { info, changed: c.changed, skipped: c.skipped, how: 'stat' }
      }
    }
  }

  return {
    root,

    takeSnapshot({ sessionId, label }) {
      // Serialised: two overlapping snapshots would race on the stat cache.
      const run = queue.then(() =>
        take(sessionId, label).catch((err: unknown) => {
          // What is kept in memory may name blobs a failed transaction never stored:
          // start the next snapshot from what the database holds.
          capture.reset()
          source.forget()
          throw err
        }),
      )
      queue = run.catch(() => undefined)
      return run
    },

    expectChanges() {
      // In the queue, after any snapshot under way; the checkpoint after the change waits for
      // the check. The caller waits only for the watch.
      const watched = queue.then(() => source.watchAhead())
      queue = watched.then((w) => w?.checked).catch(() => source.forget())
      return watched.then(
        () => undefined,
        () => undefined,
      )
    },

    ...rows.reads,

    keepBlob(hash, raw) {
      blobs.put(hash, raw)
    },

    lastListing: () => source.lastListing(),

    prepare: () => source.prepare(),

    close: () => source.close(),
  }
}
