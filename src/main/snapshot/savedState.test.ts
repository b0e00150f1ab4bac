import { databaseOf } from '../store/handle'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../containment/sandbox'
import { openStore } from '../store/store'
import { tempDir } from '../store/testing/helpers'
import type { Store } from '../store/types'
import { listUnignoredDirectories } from './directories'
import { loadState, saveState, stateFileFor } from './savedState'
import { RACY_MARGIN_MS } from './statCache'
import { createSnapshotter } from './snapshotter'
import { STAT_FIELDS, statFiles } from './statFiles'
import { snapshotTablesOf } from '../store/snapshot-tables'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function write(root: string, rel: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), content)
}

/** Every file and directory of the tree a minute old, so no capture of it is racy. */
function ageTree(root: string, dir = ''): void {
  const when = Math.floor(Date.now() / 1000) - 60
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name
    if (e.isDirectory()) ageTree(root, rel)
    fs.utimesSync(path.join(root, rel), when, when)
  }
  if (dir === '') fs.utimesSync(root, when, when)
}

/**
 * A tree and a store; `process()` opens a new store on the same data folder and a
 * new snapshotter wired as the app wires it, as a new `stepwise` process would.
 */
async function setup(files: Record<string, string>) {
  const root = fs.realpathSync(tempDir('stepwise-tree-'))
  const dataDir = tempDir()
  for (const [rel, content] of Object.entries(files)) write(root, rel, content)
  ageTree(root)
  const sandbox = await createSandbox(root)
  const stateFile = stateFileFor(path.join(dataDir, 'snapshot-state'), root, 'deny')
  const stores: Store[] = []
  cleanups.push(() => {
    for (const s of stores) s.close()
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  function process(opts: { withState?: boolean; maxFileBytes?: number } = {}) {
    const store = openStore(dataDir)
    stores.push(store)
    const counts = { listings: 0, statCacheLoads: 0 }
    // Seen from outside: a load of the stat cache prepares its one query.
    const db = databaseOf(store)
    const prepare = db.prepare.bind(db)
    vi.spyOn(db, 'prepare').mockImplementation(((sql: string) => {
      if (/FROM stat_cache WHERE root = \?$/.test(sql.trim())) counts.statCacheLoads++
      return prepare(sql)
    }) as typeof db.prepare)
    const snapshotter = createSnapshotter(snapshotTablesOf(store), {
      root,
      listFiles: async () => {
        counts.listings++
        return (await sandbox.listFiles()).files
      },
      listDirectories: () => listUnignoredDirectories(root, (rel) => sandbox.isIgnored(rel)),
      isIgnored: (rel) => sandbox.isIgnored(rel),
      now: () => Date.now() + 10 * RACY_MARGIN_MS,
      stateFile: opts.withState === false ? undefined : stateFile,
      maxFileBytes: opts.maxFileBytes,
    })
    cleanups.push(() => snapshotter.close())
    const snap = async () => {
      const r = await snapshotter.takeSnapshot({ sessionId: null })
      const files = snapshotter.getManifest(r.info.id)
      // Whatever path it took, the snapshot holds exactly what a fresh listing shows
      // (less what it says it left out), as it is on disk.
      const left = new Set(r.skipped.map((s) => s.path))
      expect(files.map((f) => f.path)).toEqual((await sandbox.listFiles()).files.filter((f) => !left.has(f)))
      for (const f of files)
        expect(snapshotter.readFileAt(r.info.id, f.path)).toEqual(fs.readFileSync(path.join(root, f.path)))
      return { changed: r.changed, manifestHash: r.info.manifestHash, skipped: r.skipped, ...counts }
    }
    return {
      snap,
      close: () => snapshotter.close(),
      prepare: () => snapshotter.prepare(),
      lastListing: () => snapshotter.lastListing(),
      newest: () => snapshotter.listSnapshots().at(-1)!,
    }
  }
  return { root, stateFile, process, listing: async () => (await sandbox.listFiles()).files }
}

const none = { added: [], modified: [], deleted: [] }

describe('the state a snapshotter leaves for the next process', () => {
  it('lets a new process take an unchanged tree without listing it or loading the stat cache', async () => {
    const { root, process, listing } = await setup({ 'a.ts': 'a', 'src/b.ts': 'b', '.gitignore': '*.log\n' })
    const first = await process().snap()
    expect(first).toMatchObject({ listings: 1, statCacheLoads: 1 })
    const later = process()
    expect(later.lastListing()).toBeUndefined() // nothing taken yet
    const again = await later.snap()
    // What it was taken from, without listing: what the index's check uses instead of listing.
    const taken = later.lastListing()!
    expect(taken.paths).toEqual(await listing())
    expect(taken.stats).toEqual(await statFiles(root, taken.paths))
    // And the folders it descended into, which the ignored-folder record need not ask the rules about.
    expect([...taken.directories!].sort()).toEqual(['', 'src'])
    // Found as the first process left it: the index checked against that tree need not check.
    expect(taken.unchangedSince).toBe(first.manifestHash)
    expect(again).toEqual({
      changed: none,
      manifestHash: first.manifestHash,
      skipped: [],
      listings: 0,
      statCacheLoads: 0,
    })
  })

  it('keeps the fast path past a file left out for its size alone, and still says it is left out', async () => {
    const { root, process } = await setup({ 'a.ts': 'a', 'big.bin': 'x'.repeat(100) })
    const limit = { maxFileBytes: 50 }
    const left = [{ path: 'big.bin', reason: 'larger than 50 bytes' }]
    const first = await process(limit).snap()
    expect(first).toMatchObject({ skipped: left, listings: 1, statCacheLoads: 1 })
    // The size alone says it is left out again: no listing, no stat-cache load, the same manifest.
    const again = await process(limit).snap()
    expect(again).toEqual({ ...first, changed: none, listings: 0, statCacheLoads: 0 })
    // Shrunk under the limit, it is captured.
    fs.writeFileSync(path.join(root, 'big.bin'), 'small')
    const shrunk = await process(limit).snap()
    expect(shrunk).toMatchObject({ changed: { ...none, added: ['big.bin'] }, skipped: [], listings: 0 })
  })

  it('takes the first snapshot from what prepare started, dated then, and ignores prepare after it', async () => {
    const { root, process } = await setup({ 'a.ts': 'a', 'src/b.ts': 'b' })
    const first = await process().snap()
    const later = process()
    const before = Date.now()
    later.prepare()
    const after = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await later.snap()).toMatchObject({ changed: none, manifestHash: first.manifestHash, listings: 0 })
    expect(later.newest().createdAt).toBeGreaterThanOrEqual(before)
    expect(later.newest().createdAt).toBeLessThanOrEqual(after)
    // After a snapshot there is nothing to start: the next one stats afresh and sees the edit.
    later.prepare()
    fs.writeFileSync(path.join(root, 'a.ts'), 'A')
    expect((await later.snap()).changed).toEqual({ ...none, modified: ['a.ts'] })
  })

  it('still sees a file edited in place to the same size, a file added and a file deleted', async () => {
    const { root, process } = await setup({ 'a.ts': 'aaaa', 'src/b.ts': 'b', 'src/c.ts': 'c' })
    await process().snap()
    fs.writeFileSync(path.join(root, 'a.ts'), 'AAAA')
    const edited = process()
    expect(await edited.snap()).toMatchObject({ changed: { ...none, modified: ['a.ts'] }, listings: 0 })
    // Not the tree an earlier snapshot left: what was checked against that one must check again.
    expect(edited.lastListing()).toMatchObject({ paths: ['a.ts', 'src/b.ts', 'src/c.ts'] })
    expect(edited.lastListing()?.unchangedSince).toBeUndefined()
    write(root, 'src/new.ts', 'n')
    fs.rmSync(path.join(root, 'src/c.ts'))
    expect((await process().snap()).changed).toEqual({
      added: ['src/new.ts'],
      modified: [],
      deleted: ['src/c.ts'],
    })
  })

  it('does not trust its stats once another process took a different snapshot since', async () => {
    const { root, process } = await setup({ 'a.ts': 'one', 'b.ts': 'two' })
    await process().snap()
    // A process that keeps no state changes the tree and snapshots it; then the file comes back as it was,
    // stats and all: the state's stats match the disk but no longer the newest snapshot.
    const before = fs.statSync(path.join(root, 'a.ts'))
    fs.writeFileSync(path.join(root, 'a.ts'), 'ONE')
    fs.utimesSync(path.join(root, 'a.ts'), before.atime, new Date(before.mtimeMs - 60_000))
    const other = await process({ withState: false }).snap()
    expect(other.changed.modified).toEqual(['a.ts'])
    fs.writeFileSync(path.join(root, 'a.ts'), 'one')
    fs.utimesSync(path.join(root, 'a.ts'), before.atime, before.mtime)
    const back = await process().snap()
    // (snap() also checks every captured byte against the disk.)
    expect(back.changed).toEqual({ ...none, modified: ['a.ts'] })
    expect(back.manifestHash).not.toBe(other.manifestHash)
  })

  it('lets the process after one that changed files skip the slow path, and still sees a racy rewrite', async () => {
    const { root, process } = await setup({ 'a.ts': 'aaaa', 'src/b.ts': 'b', 'src/c.ts': 'c' })
    await process().snap()
    // Written now: read while racily clean, so its stat alone cannot vouch for it.
    const racyAt = new Date(Math.floor(Date.now() / 1000) * 1000)
    fs.writeFileSync(path.join(root, 'a.ts'), 'AAAA')
    fs.utimesSync(path.join(root, 'a.ts'), racyAt, racyAt)
    write(root, 'src/new.ts', 'n')
    fs.rmSync(path.join(root, 'src/b.ts'))
    const changing = process()
    const changed = await changing.snap()
    expect(changed).toMatchObject({
      changed: { added: ['src/new.ts'], modified: ['a.ts'], deleted: ['src/b.ts'] },
      statCacheLoads: 0,
    })
    changing.close() // a partial capture leaves its state when the snapshotter closes
    const again = await process().snap()
    expect(again).toEqual({
      changed: none,
      manifestHash: changed.manifestHash,
      skipped: [],
      listings: 0,
      statCacheLoads: 0,
    })
    // Same size, same mtime, same inode: only the content tells.
    fs.writeFileSync(path.join(root, 'a.ts'), 'BBBB')
    fs.utimesSync(path.join(root, 'a.ts'), racyAt, racyAt)
    const rewritten = await process().snap()
    expect(rewritten).toMatchObject({
      changed: { ...none, modified: ['a.ts'] },
      listings: 0,
      statCacheLoads: 0,
    })
  })

  it('ignores a truncated, garbled or foreign state file', async () => {
    const { root, stateFile, process } = await setup({ 'a.ts': 'a', 'src/b.ts': 'b' })
    const first = await process().snap()
    const whole = fs.readFileSync(stateFile)
    for (const broken of [whole.subarray(0, whole.length - 3), Buffer.from('garbage'), Buffer.alloc(0)]) {
      fs.writeFileSync(stateFile, broken)
      expect(loadState(stateFile, root)).toBeUndefined()
      expect(await process().snap()).toMatchObject({
        changed: none,
        manifestHash: first.manifestHash,
        listings: 1,
      })
    }
  })

  it('round-trips an empty listing and one without stats', () => {
    const dir = tempDir()
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
    const file = stateFileFor(dir, '/r', 'k')
    const listing = {
      paths: [],
      directories: [''],
      dirStats: new Float64Array([1, 2, 3]),
      trusted: new Uint8Array([1]),
      fileStats: new Float64Array(12).fill(-1),
    }
    const none = new Uint8Array(0) // the listing's paths as the file holds them: none
    saveState(file, '/r', { manifestHash: 'h', listing, stats: new Float64Array(0) })
    expect(loadState(file, '/r')).toEqual({
      manifestHash: 'h',
      listing,
      stats: new Float64Array(0),
      encodedPaths: Buffer.from(none),
    })
    saveState(file, '/r', { manifestHash: 'h2', listing })
    expect(loadState(file, '/r')).toEqual({ manifestHash: 'h2', listing, encodedPaths: Buffer.from(none) })
    // Paths the file holds: the bytes a helper thread splits itself (statFiles' `encoded`).
    const named = { ...listing, paths: ['a.ts', 'dir/é.ts'] }
    saveState(file, '/r', { manifestHash: 'h3', listing: named })
    const loaded = loadState(file, '/r')
    expect(loaded?.listing?.paths).toEqual(named.paths)
    expect(Buffer.from(loaded!.encodedPaths!).toString('utf8').split('\0')).toEqual(named.paths)
    expect(loadState(file, '/other')).toBeUndefined()
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]) // no temporary file left behind
  })

  it('refuses a state whose last section is not its stats, though it is as long as they are', () => {
    const dir = tempDir()
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
    const file = stateFileFor(dir, '/r', 'k')
    const listing = {
      paths: ['a.ts'],
      directories: [''],
      dirStats: new Float64Array([1, 2, 3]),
      trusted: new Uint8Array([1]),
      fileStats: new Float64Array(12).fill(-1),
    }
    const stats = new Float64Array(STAT_FIELDS).fill(7)
    saveState(file, '/r', { manifestHash: 'h', listing, stats })
    expect(loadState(file, '/r')?.stats).toEqual(stats)
    // Another layout: a seventh section after the stats, of their length (the tail read apart).
    const saved = fs.readFileSync(file)
    const eol = saved.indexOf(10)
    const header = JSON.parse(saved.subarray(0, eol).toString('utf8')) as { sections: number[] }
    header.sections.push(stats.byteLength)
    const extra = Buffer.from(new Float64Array(STAT_FIELDS).buffer)
    fs.writeFileSync(
      file,
      Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), saved.subarray(eol + 1), extra]),
    )
    expect(loadState(file, '/r')).toBeUndefined()
  })
})
