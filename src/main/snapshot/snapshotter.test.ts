import { databaseOf } from '../store/handle'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openStore } from '../store/store'
import { tempDir } from '../store/testing/helpers'
import type { Store } from '../store/types'
import { BlobError, sha256 } from './blobs'
import { RACY_MARGIN_MS } from './statCache'
import { createSnapshotter, type Snapshotter } from './snapshotter'
import { pushAll } from '../../shared/arrays'
import { snapshotTablesOf } from '../store/snapshot-tables'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

/** Lists every regular file under root, like the sandbox would (minus its deny rules). */
function walk(root: string, dir = ''): string[] {
  const out: string[] = []
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name
    if (e.isDirectory()) pushAll(out, walk(root, rel))
    else if (e.isFile()) out.push(rel)
  }
  return out.sort()
}

function setup(files: Record<string, string>, listFiles?: (root: string) => string[]) {
  const root = fs.realpathSync(tempDir('stepwise-tree-'))
  const dataDir = tempDir()
  for (const [rel, content] of Object.entries(files)) write(root, rel, content)
  const store = openStore(dataDir)
  const list = listFiles ?? walk
  const snapshotter = createSnapshotter(snapshotTablesOf(store), { root, listFiles: async () => list(root) })
  const session = store.createSession({ repo: root, title: 't', provider: 'ollama', model: 'm' })
  cleanups.push(() => {
    store.close()
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  return { root, store, snapshotter, session, list }
}

function write(root: string, rel: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), content)
}

/**
 * Sets a file's mtime to a whole second `secondsAgo` in the past (whole seconds
 * survive utimes exactly) and returns it in ms.
 */
function age(root: string, rel: string, secondsAgo = 60): number {
  const when = Math.floor(Date.now() / 1000) - secondsAgo
  fs.utimesSync(path.join(root, rel), when, when)
  expect(fs.statSync(path.join(root, rel)).mtimeMs).toBe(when * 1000)
  return when * 1000
}

const count = (store: Store, sql: string, ...params: unknown[]) =>
  databaseOf(store)
    .prepare(sql)
    .pluck()
    .get(...params) as number
const hashOf = (s: Snapshotter, id: number, rel: string) =>
  s.getManifest(id).find((f) => f.path === rel)?.hash

describe('takeSnapshot', () => {
  it('captures every listed file with its hash, size, mode and mtime', async () => {
    const { root, snapshotter, session } = setup({
      'a.ts': 'export const a = 1\n',
      'src/b.ts': 'b',
      'empty.txt': '',
    })
    fs.chmodSync(path.join(root, 'src/b.ts'), 0o755)
    const { info, changed, skipped } = await snapshotter.takeSnapshot({
      sessionId: session.id,
      label: 'start',
    })

    expect(changed).toEqual({ added: ['a.ts', 'empty.txt', 'src/b.ts'], modified: [], deleted: [] })
    expect(skipped).toEqual([])
    expect(info).toEqual({
      id: info.id,
      sessionId: session.id,
      root,
      label: 'start',
      createdAt: info.createdAt,
      fileCount: 3,
      totalBytes: 20,
      manifestHash: info.manifestHash,
    })
    expect(snapshotter.getSnapshot(info.id)).toEqual(info)
    expect(snapshotter.getManifest(info.id)).toEqual(
      ['a.ts', 'empty.txt', 'src/b.ts'].map((rel) => {
        const st = fs.statSync(path.join(root, rel))
        const content = fs.readFileSync(path.join(root, rel))
        return { path: rel, hash: sha256(content), size: content.length, mode: st.mode, mtimeMs: st.mtimeMs }
      }),
    )
    expect(snapshotter.readFileAt(info.id, 'a.ts')!.toString()).toBe('export const a = 1\n')
    expect(snapshotter.readFileAt(info.id, 'empty.txt')!.length).toBe(0)
    expect(snapshotter.readFileAt(info.id, 'missing.ts')).toBeNull()
  })

  it('stores identical contents once, across files, snapshots and sessions', async () => {
    const big = 'the same text\n'.repeat(500)
    const { store, snapshotter, session, root } = setup({
      'one.txt': big,
      'two.txt': big,
      'three.txt': 'other',
    })
    expect(snapshotter.hasSnapshots()).toBe(false)
    const first = await snapshotter.takeSnapshot({ sessionId: session.id })
    expect(snapshotter.hasSnapshots()).toBe(true)
    expect(count(store, 'SELECT count(*) FROM blobs WHERE hash = ?', sha256(big))).toBe(1)
    // Two contents plus the manifest.
    expect(count(store, 'SELECT count(*) FROM blobs')).toBe(3)
    // Compressed on disk.
    expect(count(store, 'SELECT length(data) FROM blobs WHERE hash = ?', sha256(big))).toBeLessThan(
      big.length / 10,
    )

    const other = store.createSession({ repo: root, title: 'u', provider: 'ollama', model: 'm' })
    const again = createSnapshotter(snapshotTablesOf(store), { root, listFiles: async () => walk(root) })
    const second = await again.takeSnapshot({ sessionId: other.id })
    expect(second.changed).toEqual({ added: [], modified: [], deleted: [] })
    expect(second.info.manifestHash).toBe(first.info.manifestHash)
    expect(second.info.id).toBeGreaterThan(first.info.id)
    expect(count(store, 'SELECT count(*) FROM blobs')).toBe(3)
    expect(count(store, 'SELECT count(*) FROM snapshots')).toBe(2)
    expect(again.listSnapshots({ sessionId: other.id }).map((s) => s.id)).toEqual([second.info.id])
    expect(again.listSnapshots().map((s) => s.id)).toEqual([first.info.id, second.info.id])
  })

  it('captures a tree big enough for the read threads: every file whole, each content stored once', async () => {
    const files: Record<string, string> = {}
    // 3 contents shared by 90 files, the rest unique, across several slices' worth of files.
    for (let i = 0; i < 2600; i++)
      files[`pkg${i % 13}/f${i}.js`] =
        i % 29 === 0 ? `shared ${i % 3}\n`.repeat(40) : `export const v${i} = ${i}\n`
    const { store, snapshotter, session, root } = setup(files)
    const first = await snapshotter.takeSnapshot({ sessionId: session.id })
    expect(first.skipped).toEqual([])
    const manifest = snapshotter.getManifest(first.info.id)
    expect(manifest.map((f) => f.path)).toEqual(walk(root))
    for (const f of manifest)
      expect(snapshotter.readFileAt(first.info.id, f.path)?.toString()).toBe(files[f.path])
    const contents = new Set(Object.values(files))
    // Each content once, plus the manifest.
    expect(count(store, 'SELECT count(*) FROM blobs')).toBe(contents.size + 1)

    // A new process: unchanged files come from the stat cache, a changed one is read again.
    fs.appendFileSync(path.join(root, 'pkg0/f0.js'), 'changed\n')
    age(root, 'pkg0/f0.js')
    const again = createSnapshotter(snapshotTablesOf(store), { root, listFiles: async () => walk(root) })
    const second = await again.takeSnapshot({ sessionId: session.id })
    expect(second.changed).toEqual({ added: [], modified: ['pkg0/f0.js'], deleted: [] })
    expect(again.readFileAt(second.info.id, 'pkg0/f0.js')?.toString()).toBe(`${files['pkg0/f0.js']}changed\n`)
  }, 60_000)

  it('writes each slice’s stat-cache rows with its blobs, not all after the last read', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 2600; i++) files[`pkg${i % 13}/f${i}.js`] = `export const v${i} = ${i}\n`
    const { store, snapshotter, session } = setup(files)
    // The stat cache's rows as each blob is stored: a slice is 2,000 files (captureAll.ts).
    const blobRows = snapshotTablesOf(store).blobs
    const insert = blobRows.insert
    const seen: number[] = []
    blobRows.insert = (...args) => {
      seen.push(count(store, 'SELECT count(*) FROM stat_cache'))
      return insert(...args)
    }
    await snapshotter.takeSnapshot({ sessionId: session.id })
    // 2,600 files' blobs and the manifest's; the second slice's found the first slice's rows.
    expect(seen).toHaveLength(2601)
    expect(seen[2000]).toBe(2000)
    expect(count(store, 'SELECT count(*) FROM stat_cache')).toBe(2600)
  }, 60_000)

  it('reports added, modified and deleted files against the previous snapshot', async () => {
    const { root, snapshotter, session } = setup({
      'keep.ts': 'k',
      'change.ts': 'old',
      'gone.ts': 'g',
      'mode.sh': 'echo',
    })
    const first = await snapshotter.takeSnapshot({ sessionId: session.id })
    write(root, 'change.ts', 'new content')
    fs.rmSync(path.join(root, 'gone.ts'))
    write(root, 'dir/new.ts', 'n')
    fs.chmodSync(path.join(root, 'mode.sh'), 0o755)
    const second = await snapshotter.takeSnapshot({ sessionId: session.id })

    expect(second.changed).toEqual({
      added: ['dir/new.ts'],
      modified: ['change.ts', 'mode.sh'],
      deleted: ['gone.ts'],
    })
    expect(snapshotter.diffSnapshots(first.info.id, second.info.id)).toEqual(second.changed)
    expect(snapshotter.readFileAt(first.info.id, 'change.ts')!.toString()).toBe('old')
    expect(snapshotter.readFileAt(second.info.id, 'change.ts')!.toString()).toBe('new content')
    expect(snapshotter.readFileAt(second.info.id, 'gone.ts')).toBeNull()
    expect(snapshotter.readFileAt(first.info.id, 'gone.ts')!.toString()).toBe('g')
  })

  it('reuses the hash of a file whose size and mtime are unchanged, without reading it', async () => {
    const { root, store, snapshotter, session } = setup({ 'a.txt': 'AAAA', 'b.txt': 'bbbb' })
    const mtime = age(root, 'a.txt')
    age(root, 'b.txt')
    const first = await snapshotter.takeSnapshot({ sessionId: session.id })

    // Same size, same mtime, different bytes: only a file that is not re-read keeps its old hash.
    write(root, 'a.txt', 'ZZZZ')
    fs.utimesSync(path.join(root, 'a.txt'), mtime / 1000, mtime / 1000)
    expect(fs.statSync(path.join(root, 'a.txt')).mtimeMs).toBe(mtime)
    const second = await snapshotter.takeSnapshot({ sessionId: session.id })
    expect(second.changed).toEqual({ added: [], modified: [], deleted: [] })
    expect(hashOf(snapshotter, second.info.id, 'a.txt')).toBe(sha256('AAAA'))

    // The cache survives a restart (it lives in the database).
    const restarted = createSnapshotter(snapshotTablesOf(store), { root, listFiles: async () => walk(root) })
    const third = await restarted.takeSnapshot({ sessionId: session.id })
    expect(hashOf(restarted, third.info.id, 'a.txt')).toBe(sha256('AAAA'))

    // A different mtime is noticed.
    age(root, 'a.txt', 30)
    const fourth = await restarted.takeSnapshot({ sessionId: session.id })
    expect(fourth.changed.modified).toEqual(['a.txt'])
    expect(hashOf(restarted, fourth.info.id, 'a.txt')).toBe(sha256('ZZZZ'))
    expect(first.info.manifestHash).not.toBe(fourth.info.manifestHash)
  })

  it('re-hashes a racily clean file: modified within the timestamp margin of the snapshot that saw it', async () => {
    const { root, snapshotter, session } = setup({ 'racy.txt': 'AAAA' })
    // "Just now" relative to the snapshot: the mtime is within the margin.
    const mtime = age(root, 'racy.txt', 0)
    expect(Date.now() - mtime).toBeLessThan(RACY_MARGIN_MS)
    await snapshotter.takeSnapshot({ sessionId: session.id })

    write(root, 'racy.txt', 'ZZZZ')
    fs.utimesSync(path.join(root, 'racy.txt'), mtime / 1000, mtime / 1000)
    expect(fs.statSync(path.join(root, 'racy.txt')).mtimeMs).toBe(mtime)
    const second = await snapshotter.takeSnapshot({ sessionId: session.id })
    expect(second.changed).toEqual({ added: [], modified: ['racy.txt'], deleted: [] })
    expect(snapshotter.readFileAt(second.info.id, 'racy.txt')!.toString()).toBe('ZZZZ')
  })

  it('captures only what listFiles returns: keeping denied files out is the caller’s contract', async () => {
    const secret = 'OPENAI_API_KEY=sk-very-secret'
    const denied = (rel: string) => /(^|\/)\.env(\..*)?$/.test(rel) || rel.endsWith('.pem')
    const { store, snapshotter, session } = setup(
      { '.env': secret, 'config/.env.local': secret + '2', 'certs/server.pem': 'KEY', 'app.ts': 'ok' },
      (root) => walk(root).filter((rel) => !denied(rel)),
    )
    const { info } = await snapshotter.takeSnapshot({ sessionId: session.id })
    expect(snapshotter.getManifest(info.id).map((f) => f.path)).toEqual(['app.ts'])
    for (const content of [secret, secret + '2', 'KEY']) {
      expect(count(store, 'SELECT count(*) FROM blobs WHERE hash = ?', sha256(content))).toBe(0)
    }
  })

  it('ignores listed paths that leave the root and reports files it could not capture', async () => {
    const { snapshotter, session } = setup({ 'a.ts': 'a' }, () => [
      '../outside.txt',
      '/etc/passwd',
      'a.ts',
      'ghost.ts',
    ])
    const { info, skipped } = await snapshotter.takeSnapshot({ sessionId: session.id })
    expect(snapshotter.getManifest(info.id).map((f) => f.path)).toEqual(['a.ts'])
    expect(skipped).toEqual([{ path: 'ghost.ts', reason: 'vanished' }])
  })

  it('serialises overlapping snapshots', async () => {
    const { root, snapshotter, session } = setup({ 'a.ts': 'a' })
    const first = snapshotter.takeSnapshot({ sessionId: session.id })
    write(root, 'b.ts', 'b')
    const [one, two] = await Promise.all([first, snapshotter.takeSnapshot({ sessionId: session.id })])
    expect(two.info.id).toBe(one.info.id + 1)
    expect(one.changed.added.length + two.changed.added.length).toBe(2)
  })
})

describe('reading back', () => {
  it('detects a corrupt or missing blob and names the hash and the file', async () => {
    const { store, snapshotter, session } = setup({
      'src/a.ts': 'const a = 1\n'.repeat(20),
      'b.ts': 'const b = 2\n'.repeat(20),
    })
    const { info } = await snapshotter.takeSnapshot({ sessionId: session.id })
    const ha = hashOf(snapshotter, info.id, 'src/a.ts')!
    const hb = hashOf(snapshotter, info.id, 'b.ts')!

    // Swap a's stored bytes for b's: decodes fine, but no longer matches a's hash.
    databaseOf(store)
      .prepare('UPDATE blobs SET data = (SELECT data FROM blobs WHERE hash = ?) WHERE hash = ?')
      .run(hb, ha)
    expect(() => snapshotter.readFileAt(info.id, 'src/a.ts')).toThrow(
      new BlobError(
        `Snapshot data for src/a.ts (blob ${ha}) is corrupt: its content no longer matches its hash.`,
      ),
    )
    expect(() => snapshotter.readBlob(ha)).toThrow(`blob ${ha}`)

    databaseOf(store).prepare("UPDATE blobs SET data = x'00ff00' WHERE hash = ?").run(hb)
    expect(() => snapshotter.readFileAt(info.id, 'b.ts')).toThrow(
      `Snapshot data for b.ts (blob ${hb}) is corrupt`,
    )

    databaseOf(store).prepare('DELETE FROM blobs WHERE hash = ?').run(hb)
    expect(() => snapshotter.readFileAt(info.id, 'b.ts')).toThrow(
      `Snapshot data for b.ts (blob ${hb}) is missing from the store.`,
    )
  })

  it('serves a baseline to the review tools', async () => {
    const { root, snapshotter, session } = setup({ 'a.ts': 'original\n', 'lib/b.ts': 'bee' })
    const { info } = await snapshotter.takeSnapshot({ sessionId: session.id, label: 'baseline' })
    write(root, 'a.ts', 'edited\n')
    await snapshotter.takeSnapshot({ sessionId: session.id })

    const baseline = snapshotter.baselineReader(info.id)
    expect(baseline.info()).toEqual({
      snapshotId: info.id,
      createdAt: info.createdAt,
      fileCount: 2,
      totalBytes: 12,
    })
    expect(baseline.files()).toEqual(
      new Map([
        ['a.ts', { hash: sha256('original\n'), size: 9 }],
        ['lib/b.ts', { hash: sha256('bee'), size: 3 }],
      ]),
    )
    expect(baseline.readOriginal('a.ts')!.toString()).toBe('original\n')
    expect(baseline.readOriginal('nope.ts')).toBeNull()
    expect(() => snapshotter.baselineReader(9999)).toThrow('No snapshot with id 9999.')
  })
})
