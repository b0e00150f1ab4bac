import { databaseOf } from '../store/handle'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../shared/protocol'
import { createSnapshotter } from '../snapshot/snapshotter'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { exportBundle, importBundle } from './bundle'
import { mapSnapshotIds, snapshotIdsOf } from './bundle-checks'
import { recordEditingSession } from './bundle-test-support'
import { snapshotTablesOf } from '../store/snapshot-tables'

let repo: string
let dirs: string[]
let source: Store
let stores: Store[]

const tempDir = (prefix: string): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  dirs.push(dir)
  return dir
}
const freshStore = (): Store => {
  const store = openStore(tempDir('stepwise-bundle-data-'))
  stores.push(store)
  return store
}

beforeEach(() => {
  dirs = []
  stores = []
  repo = tempDir('stepwise-bundle-repo-')
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\nthree\n')
  source = freshStore()
})

afterEach(() => {
  for (const s of stores) s.close()
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

/** The session's snapshot ids in the order they were taken. */
function referencedSnapshots(events: StepwiseEvent[]): number[] {
  return [...new Set(events.flatMap(snapshotIdsOf))].sort((a, b) => a - b)
}

function snapshotContents(store: Store, root: string, ids: number[]) {
  const snaps = createSnapshotter(snapshotTablesOf(store), { root, listFiles: async () => [] })
  return ids.map((id) => {
    const manifest = snaps.getManifest(id)
    return {
      root: snaps.getSnapshot(id)!.root,
      manifest,
      files: manifest.map((f) => [f.path, snaps.readFileAt(id, f.path)!.toString('utf8')]),
    }
  })
}

const traffic = (store: Store, id: string) => store.listTraffic(id).map(({ id: _id, ...t }) => t)

describe('session bundles', () => {
  it('round-trips a recorded session into a fresh data folder: row, events, traffic, snapshots, files', async () => {
    const id = await recordEditingSession(source, repo)
    const before = source.listEvents(id)
    // A restore event too, so both of its snapshot ids are carried and mapped.
    const ids = referencedSnapshots(before)
    source.appendEvent(id, {
      type: 'checkpoint.restored',
      kind: 'undo',
      snapshotId: ids[0],
      savedSnapshotId: ids[ids.length - 1],
      paths: ['a.txt'],
    })
    const events = source.listEvents(id)
    const file = path.join(tempDir('stepwise-bundle-out-'), 'x.stepwise')

    const exported = await exportBundle(source, id, file)
    expect(exported).toEqual({
      file,
      bytes: fs.statSync(file).size,
      events: events.length,
      traffic: 8,
      snapshots: 3,
      blobs: 3 + 3, // 3 manifests; a.txt before and after, notes/b.md
    })

    const target = freshStore()
    const imported = importBundle(target, file)
    expect(imported).toEqual({
      sessionId: id,
      originalId: id,
      repo,
      newBlobs: 6,
      events: events.length,
      traffic: 8,
      snapshots: 3,
      blobs: 6,
    })
    expect(target.getSession(id)).toEqual(source.getSession(id))
    // A fresh store numbers the snapshots as the source did (it held only this session).
    expect(target.listEvents(id)).toEqual(events)
    expect(traffic(target, id)).toEqual(traffic(source, id))
    expect(snapshotContents(target, repo, ids)).toEqual(snapshotContents(source, repo, ids))
    expect(snapshotContents(target, repo, ids).map((s) => s.files)).toEqual([
      [['a.txt', 'one\ntwo\nthree\n']],
      [
        ['a.txt', 'one\ntwo\nthree\n'],
        ['notes/b.md', '# Notes\n\nsecond file\n'],
      ],
      [
        ['a.txt', 'one\nTWO\nthree\n'],
        ['notes/b.md', '# Notes\n\nsecond file\n'],
      ],
    ])
  })

  it('gives an imported session a new id when its own is taken, and maps its snapshot ids', async () => {
    const id = await recordEditingSession(source, repo)
    const events = source.listEvents(id)
    const file = path.join(tempDir('stepwise-bundle-out-'), 'x.stepwise')
    await exportBundle(source, id, file)

    // Into the store it came from: the id, the blobs and the snapshot numbers are taken.
    const blobHashes = () => databaseOf(source).prepare<[], string>('SELECT hash FROM blobs').pluck().all()
    const blobsBefore = new Set(blobHashes())
    const imported = importBundle(source, file)
    expect(imported.originalId).toBe(id)
    expect(imported.sessionId).not.toBe(id)
    // Every file's content is shared; only manifests the store keeps as deltas arrive whole (once each).
    const added = blobHashes().filter((h) => !blobsBefore.has(h))
    expect(added).toHaveLength(imported.newBlobs)
    const importedManifests = databaseOf(source)
      .prepare<[string], string>('SELECT manifest_hash FROM snapshots WHERE session_id = ?')
      .pluck()
      .all(imported.sessionId)
    expect(added.every((h) => importedManifests.includes(h))).toBe(true)
    const copy = source.getSession(imported.sessionId)!
    expect(copy).toEqual({ ...source.getSession(id)!, id: imported.sessionId })

    const oldIds = referencedSnapshots(events)
    const newIds = referencedSnapshots(source.listEvents(imported.sessionId))
    expect(newIds).toHaveLength(oldIds.length)
    expect(newIds.every((n) => !oldIds.includes(n))).toBe(true)
    const mapped = new Map(oldIds.map((o, i) => [o, newIds[i]]))
    expect(source.listEvents(imported.sessionId)).toEqual(
      events.map((e) => ({ ...mapSnapshotIds(e, (n) => mapped.get(n)!), sessionId: imported.sessionId })),
    )
    expect(snapshotContents(source, repo, newIds)).toEqual(snapshotContents(source, repo, oldIds))
    expect(traffic(source, imported.sessionId)).toEqual(traffic(source, id))

    // A second import of the same file gets yet another id.
    const again = importBundle(source, file)
    expect(new Set([id, imported.sessionId, again.sessionId]).size).toBe(3)
  })

  it('moves the session to another folder with --repo: the row, the snapshot roots and session.started', async () => {
    const id = await recordEditingSession(source, repo)
    const file = path.join(tempDir('stepwise-bundle-out-'), 'x.stepwise')
    await exportBundle(source, id, file)
    const elsewhere = tempDir('stepwise-bundle-elsewhere-')

    const target = freshStore()
    const imported = importBundle(target, file, { repo: elsewhere })
    expect(imported.repo).toBe(elsewhere)
    expect(target.getSession(id)!.repo).toBe(elsewhere)
    const events = target.listEvents(id)
    expect(events[0]).toEqual({ ...source.listEvents(id)[0], repo: elsewhere })
    expect(events.slice(1)).toEqual(source.listEvents(id).slice(1))
    const ids = referencedSnapshots(events)
    expect(snapshotContents(target, elsewhere, ids).map((s) => s.root)).toEqual(ids.map(() => elsewhere))
  })

  it('exports a session without snapshots or traffic', async () => {
    const s = source.createSession({ repo, title: 'bare', provider: 'ollama', model: 'm' })
    source.appendEvent(s.id, { type: 'user.message', text: 'hello' })
    const file = path.join(tempDir('stepwise-bundle-out-'), 'bare.stepwise')
    const exported = await exportBundle(source, s.id, file)
    expect(exported).toMatchObject({ events: 1, traffic: 0, snapshots: 0, blobs: 0 })
    const target = freshStore()
    importBundle(target, file)
    expect(target.listEvents(s.id)).toEqual(source.listEvents(s.id))
    expect(target.getSession(s.id)).toEqual(source.getSession(s.id))
  })
})
