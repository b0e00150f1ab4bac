import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SnapshotRow } from '../store/snapshot-tables'
import { tempDir } from '../store/testing/helpers'
import { createChangeSource, type ChangeSource } from './changeSource'
import { listUnignoredDirectories } from './directories'
import { statFiles } from './statFiles'

// The real statFiles, watched: which paths a source stats, and how it sends them.
vi.mock('./statFiles', async (importOriginal) => {
  const real = await importOriginal<typeof import('./statFiles')>()
  return { ...real, statFiles: vi.fn(real.statFiles) }
})

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

  function setUp(at: { root?: string; stateFile?: string } = {}) {
    const root = at.root ?? fs.realpathSync(tempDir('stepwise-changes-'))
    if (!at.root) {
      roots.push(root)
      fs.mkdirSync(path.join(root, 'd'))
      fs.writeFileSync(path.join(root, 'a.txt'), 'a')
      fs.writeFileSync(path.join(root, 'd/b.txt'), 'b')
    }
    const listFiles = async () => ['d/b.txt', 'a.txt']
    let latest: SnapshotRow | undefined
    source = createChangeSource(
      {
        root,
        listFiles,
        listDirectories: () => listUnignoredDirectories(root, () => false),
        stateFile: at.stateFile,
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

  it('restoring a saved state unprefetched, sends its paths to the helpers as the bytes it holds', async () => {
    const stateFile = path.join(fs.realpathSync(tempDir('stepwise-state-')), 'tree.state')
    roots.push(path.dirname(stateFile))
    const made = setUp({ stateFile })
    const taken = await made.source.plan(Date.now())
    if (taken.changes.kind !== 'all') throw new Error('expected a full capture')
    made.source.storedAll(taken.changes, 'm1', [])
    made.source.close()

    // The next process: no prefetch, so the source starts the stats itself.
    vi.mocked(statFiles).mockClear()
    const next = setUp({ root: made.root, stateFile })
    next.setLatest(row('m1'))
    next.source.prepare()
    const [[root, paths, opts]] = vi.mocked(statFiles).mock.calls
    expect([root, paths]).toEqual([made.root, ['a.txt', 'd/b.txt']])
    expect(Buffer.from(opts!.encoded!).toString('utf8').split('\0')).toEqual(['a.txt', 'd/b.txt'])
    expect((await next.source.plan(Date.now())).changes).toMatchObject({ kind: 'none', how: 'stat' })
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
