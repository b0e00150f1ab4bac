import { databaseOf } from '../store/handle'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../store/store'
import { tempDir } from '../store/testing/helpers'
import type { SnapshotFile, Store } from '../store/types'
import { BlobError, createBlobStore, sha256 } from './blobs'
import {
  applyManifestDeltas,
  decodeManifest,
  encodeManifest,
  encodeManifestDelta,
  MAX_DELTA_DEPTH,
} from './manifest'
import { createManifestStore } from './manifestStore'
import { createSnapshotter } from './snapshotter'
import { snapshotTablesOf } from '../store/snapshot-tables'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

const file = (p: string, content: string, mtimeMs = 1000): SnapshotFile => ({
  path: p,
  hash: sha256(content),
  size: content.length,
  mode: 0o100644,
  mtimeMs,
})

describe('manifest deltas', () => {
  const base = [file('a.ts', 'a'), file('m/b.ts', 'b'), file('m/c.ts', 'c'), file('z.ts', 'z')]

  it('encode what differs from the base and decode to the same records', () => {
    const set = [file('a.ts', 'A', 2000), file('m/ba.ts', 'new')]
    const data = encodeManifestDelta(sha256('base'), set, ['m/c.ts', 'z.ts'])
    expect(data.toString().split('\0')).toEqual([
      `stepwise-manifest-delta 1 ${sha256('base')}\n${sha256('A')} 1 100644 2000 a.ts`,
      `${sha256('new')} 3 100644 1000 m/ba.ts`,
      '- m/c.ts',
      '- z.ts',
      '',
    ])
    expect(decodeManifest(data)).toEqual({
      kind: 'delta',
      base: sha256('base'),
      set,
      removed: ['m/c.ts', 'z.ts'],
    })
    expect(decodeManifest(encodeManifest(base))).toEqual({ kind: 'full', files: base })
  })

  it('encode byte for byte as the records joined into one text would, past any first guess at their size', () => {
    const odd = [
      file('ascii.ts', 'x'),
      file(`deep/${'ü'.repeat(3000)}/κ.ts`, 'y'), // two bytes a character, longer than a record's guess
      file(`emoji/${'🙂'.repeat(2000)}.md`, 'z'), // four bytes a character: two UTF-16 units each
      file('日本/語.ts', 'w'),
    ]
    const record = (f: SnapshotFile) => `${f.hash} ${f.size} 100644 ${f.mtimeMs} ${f.path}\0`
    const many = Array.from({ length: 3000 }, (_, i) => file(`p/${String(i).padStart(5, '0')}.ts`, `${i}`))
    for (const files of [odd, many, []]) {
      const joined = Buffer.from(`stepwise-manifest 1\n${files.map(record).join('')}`, 'utf8')
      expect(encodeManifest(files).equals(joined)).toBe(true)
      expect(decodeManifest(encodeManifest(files))).toEqual({ kind: 'full', files })
    }
    const delta = encodeManifestDelta(sha256('base'), odd.slice(1, 3), ['a', `${'ü'.repeat(5000)}`])
    expect(decodeManifest(delta)).toMatchObject({ set: odd.slice(1, 3), removed: ['a', 'ü'.repeat(5000)] })
  })

  it('apply in order: the newest record of a path wins, a removed path can come back', () => {
    const first = { set: [file('a.ts', 'A1'), file('0.ts', 'zero')], removed: ['m/b.ts', 'z.ts'] }
    const second = { set: [file('m/b.ts', 'back'), file('zz.ts', 'last')], removed: ['0.ts'] }
    const third = { set: [file('a.ts', 'A3')], removed: [] }
    expect(applyManifestDeltas(base, [first, second, third])).toEqual([
      file('a.ts', 'A3'),
      file('m/b.ts', 'back'),
      file('m/c.ts', 'c'),
      file('zz.ts', 'last'),
    ])
    expect(applyManifestDeltas(base, [first])).toEqual([
      file('0.ts', 'zero'),
      file('a.ts', 'A1'),
      file('m/c.ts', 'c'),
    ])
    expect(applyManifestDeltas(base, [])).toEqual(base)
  })

  it('refuse a header they do not know and a delta whose base hash is malformed', () => {
    expect(() => decodeManifest(Buffer.from('stepwise-manifest 9\n'))).toThrow(/unknown header/)
    expect(() => decodeManifest(Buffer.from('stepwise-manifest-delta 1 nothex\n'))).toThrow(/delta header/)
  })
})

function project(files: number) {
  const root = fs.realpathSync(tempDir('stepwise-delta-tree-'))
  const dataDir = tempDir()
  const names = Array.from({ length: files }, (_, i) => `src/f${String(i).padStart(3, '0')}.ts`)
  fs.mkdirSync(path.join(root, 'src'))
  for (const n of names) fs.writeFileSync(path.join(root, n), `export const v = '${n}'\n`)
  const store = openStore(dataDir)
  cleanups.push(() => {
    store.close()
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const list = async () =>
    fs
      .readdirSync(path.join(root, 'src'))
      .map((n) => `src/${n}`)
      .sort()
  const session = store.createSession({ repo: root, title: 't', provider: 'ollama', model: 'm' })
  const snapshotter = () => createSnapshotter(snapshotTablesOf(store), { root, listFiles: list })
  return { root, store, names, session, snapshotter }
}

const storedManifest = (store: Store, hash: string) =>
  decodeManifest(createBlobStore(snapshotTablesOf(store).blobs).get(hash, 'manifest'))

describe('a snapshotter storing manifests as deltas', () => {
  it('stores a checkpoint that changed a few files as a delta, and reads it back whole after a restart', async () => {
    const { root, store, names, session, snapshotter } = project(40)
    const s = snapshotter()
    const first = await s.takeSnapshot({ sessionId: session.id })
    fs.writeFileSync(path.join(root, names[3]), 'changed\n')
    fs.rmSync(path.join(root, names[7]))
    fs.writeFileSync(path.join(root, 'src/new.ts'), 'new\n')
    const second = await s.takeSnapshot({ sessionId: session.id })
    expect(second.changed).toEqual({ added: ['src/new.ts'], modified: [names[3]], deleted: [names[7]] })

    const stored = storedManifest(store, second.info.manifestHash)
    expect(stored).toMatchObject({ kind: 'delta', base: first.info.manifestHash, removed: [names[7]] })
    expect(stored.kind === 'delta' && stored.set.map((f) => f.path)).toEqual([names[3], 'src/new.ts'])

    // A new snapshotter has nothing cached: it walks the chain down to the full manifest.
    const cold = snapshotter()
    const expected = [...names.filter((n) => n !== names[7]), 'src/new.ts'].sort()
    expect(cold.getManifest(second.info.id).map((f) => f.path)).toEqual(expected)
    expect(cold.readFileAt(second.info.id, names[3])!.toString()).toBe('changed\n')
    expect(cold.readFileAt(first.info.id, names[7])!.toString()).toBe(`export const v = '${names[7]}'\n`)
    expect(cold.diffSnapshots(first.info.id, second.info.id)).toEqual(second.changed)
  })

  it('writes a full manifest when the change is large or the chain reaches its bound', async () => {
    const { root, store, names, session, snapshotter } = project(40)
    const s = snapshotter()
    await s.takeSnapshot({ sessionId: session.id })
    for (const n of names.slice(0, 25)) fs.writeFileSync(path.join(root, n), 'most files changed\n')
    const large = await s.takeSnapshot({ sessionId: session.id })
    expect(large.changed.modified).toHaveLength(25)
    expect(storedManifest(store, large.info.manifestHash).kind).toBe('full')

    const kinds: string[] = []
    for (let i = 0; i <= MAX_DELTA_DEPTH; i++) {
      fs.writeFileSync(path.join(root, names[30]), `round ${i}\n`)
      const r = await s.takeSnapshot({ sessionId: session.id })
      kinds.push(storedManifest(store, r.info.manifestHash).kind)
    }
    expect(kinds).toEqual([...Array<string>(MAX_DELTA_DEPTH).fill('delta'), 'full'])
    const last = s.listSnapshots().at(-1)!
    expect(snapshotter().readFileAt(last.id, names[30])!.toString()).toBe(`round ${MAX_DELTA_DEPTH}\n`)
  })

  it('reports a missing base of a delta as missing snapshot data, by name', async () => {
    const { root, store, names, session, snapshotter } = project(10)
    const s = snapshotter()
    const first = await s.takeSnapshot({ sessionId: session.id })
    fs.writeFileSync(path.join(root, names[0]), 'x\n')
    const second = await s.takeSnapshot({ sessionId: session.id })
    expect(storedManifest(store, second.info.manifestHash).kind).toBe('delta')
    databaseOf(store).pragma('foreign_keys = OFF')
    databaseOf(store).prepare('DELETE FROM blobs WHERE hash = ?').run(first.info.manifestHash)

    const manifests = createManifestStore(createBlobStore(snapshotTablesOf(store).blobs))
    expect(() => manifests.load(second.info.manifestHash)).toThrow(BlobError)
    expect(() => manifests.load(second.info.manifestHash)).toThrow(
      `Snapshot data for a snapshot manifest (blob ${first.info.manifestHash}) is missing from the store.`,
    )
  })
})
