import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SnapshotRow } from '../store/snapshot-tables'
import { tempDir } from '../store/testing/helpers'
import { createChangeSource, type ChangeSource } from './changeSource'
import { listUnignoredDirectories } from './directories'

/** A stored row naming `manifestHash`, as the store would hand it back. */
const row = (manifestHash: string): SnapshotRow => ({
  id: 1,
  session_id: null,
  root: '/r',
  label: null,
  created_at: 0,
  manifest_hash: manifestHash,
  file_count: 2,
  total_bytes: 2,
})

describe('the change source', () => {
  let source: ChangeSource | undefined
  const roots: string[] = []
  afterEach(() => {
    source?.close()
    for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true })
  })

  function setUp() {
    const root = fs.realpathSync(tempDir('stepwise-changes-'))
    roots.push(root)
    fs.mkdirSync(path.join(root, 'd'))
    fs.writeFileSync(path.join(root, 'a.txt'), 'a')
    fs.writeFileSync(path.join(root, 'd/b.txt'), 'b')
    const listFiles = async () => ['d/b.txt', 'a.txt']
    let latest: SnapshotRow | undefined
    source = createChangeSource(
      {
        root,
        listFiles,
        listDirectories: () => listUnignoredDirectories(root, () => false),
        // Directories changed moments ago count as settled: the listing is kept.
        now: () => Date.now() + 60_000,
      },
      () => latest,
    )
    return { root, source, setLatest: (r: SnapshotRow) => (latest = r) }
  }

  it('asks for everything first, then for nothing while the stats vouch for the last snapshot', async () => {
    const { source, setLatest } = setUp()
    const first = await source.plan(Date.now())
    expect(first.changes).toMatchObject({ kind: 'all', previous: undefined, paths: ['a.txt', 'd/b.txt'] })
    if (first.changes.kind !== 'all') throw new Error('expected a full capture')
    source.storedAll(first.changes, 'm1', [])
    setLatest(row('m1'))

    const second = await source.plan(Date.now())
    expect(second.changes).toMatchObject({ kind: 'none', how: 'stat', skipped: [], save: false })
    expect(source.lastListing()?.unchangedSince).toBe('m1')
  })

  it('names only the file whose stat changed', async () => {
    const { root, source, setLatest } = setUp()
    const first = await source.plan(Date.now())
    if (first.changes.kind !== 'all') throw new Error('expected a full capture')
    source.storedAll(first.changes, 'm1', [])
    setLatest(row('m1'))

    fs.writeFileSync(path.join(root, 'd/b.txt'), 'bigger')
    const next = await source.plan(Date.now())
    expect(next.changes.kind).toBe('some')
    if (next.changes.kind !== 'some') return
    expect([...next.changes.named]).toEqual(['d/b.txt'])
    expect(next.changes.how).toBe('stat')
    expect(next.changes.base?.paths).toBe(next.changes.paths)
  })

  it('vouches for nothing after a capture its stats cannot vouch for, or after a failure', async () => {
    const { source, setLatest } = setUp()
    const first = await source.plan(Date.now())
    if (first.changes.kind !== 'all') throw new Error('expected a full capture')
    source.storedAll(first.changes, 'm1', undefined)
    setLatest(row('m1'))
    expect((await source.plan(Date.now())).changes.kind).toBe('all')

    const again = await source.plan(Date.now())
    if (again.changes.kind !== 'all') throw new Error('expected a full capture')
    source.storedAll(again.changes, 'm1', [])
    source.forget()
    expect((await source.plan(Date.now())).changes.kind).toBe('all')
  })

  it('does not trust stats saved with another manifest than the newest snapshot', async () => {
    const { source, setLatest } = setUp()
    const first = await source.plan(Date.now())
    if (first.changes.kind !== 'all') throw new Error('expected a full capture')
    source.storedAll(first.changes, 'm1', [])
    // Another process stored a newer snapshot of the root meanwhile.
    setLatest(row('m2'))
    expect((await source.plan(Date.now())).changes).toMatchObject({
      kind: 'all',
      previous: { manifest_hash: 'm2' },
    })
  })
})
