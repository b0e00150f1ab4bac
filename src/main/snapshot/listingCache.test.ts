import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSandbox } from '../containment/sandbox'
import { openStore } from '../store/store'
import { tempDir } from '../store/testing/helpers'
import { listUnignoredDirectories } from './directories'
import { RACY_MARGIN_MS } from './statCache'
import { createSnapshotter } from './snapshotter'
import { snapshotTablesOf } from '../store/snapshot-tables'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function write(root: string, rel: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), content)
}

/**
 * A snapshotter wired as the app wires it: the sandbox's ripgrep listing and a
 * walk of the directories it does not ignore. `clockAhead` moves the clock that
 * judges directories forward, so a tree built a moment ago counts as old.
 * `reread` also wires the sandbox's `isIgnored`, which lets changed directories
 * be read again instead of listing the whole tree.
 */
async function setup(
  files: Record<string, string>,
  dirs: string[] = [],
  clockAhead = 10 * RACY_MARGIN_MS,
  reread = false,
) {
  const root = fs.realpathSync(tempDir('stepwise-tree-'))
  const dataDir = tempDir()
  for (const [rel, content] of Object.entries(files)) write(root, rel, content)
  for (const dir of dirs) fs.mkdirSync(path.join(root, dir), { recursive: true })
  const sandbox = await createSandbox(root)
  const store = openStore(dataDir)
  cleanups.push(() => {
    store.close()
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const counts = { listings: 0 }
  const snapshotter = createSnapshotter(snapshotTablesOf(store), {
    root,
    listFiles: async () => {
      counts.listings++
      return (await sandbox.listFiles()).files
    },
    listDirectories: () => listUnignoredDirectories(root, (rel) => sandbox.isIgnored(rel)),
    now: () => Date.now() + clockAhead,
    isIgnored: reread ? (rel) => sandbox.isIgnored(rel) : undefined,
  })
  const snap = async () => {
    const result = await snapshotter.takeSnapshot({ sessionId: null })
    const manifest = snapshotter.getManifest(result.info.id).map((f) => f.path)
    // Whatever path it took, the snapshot holds exactly what a fresh listing shows.
    expect(manifest).toEqual((await sandbox.listFiles()).files)
    return { changed: result.changed, manifest, listings: counts.listings }
  }
  return { root, snapshotter, snap }
}

const none = { added: [], modified: [], deleted: [] }

describe('reusing the listing of an unchanged tree', () => {
  it('does not list again while no directory changed, yet sees files edited in place', async () => {
    const { root, snap } = await setup({ 'a.ts': 'a', 'src/b.ts': 'b', '.gitignore': '*.log\n' })
    expect(await snap()).toEqual({
      changed: { added: ['.gitignore', 'a.ts', 'src/b.ts'], modified: [], deleted: [] },
      manifest: ['.gitignore', 'a.ts', 'src/b.ts'],
      listings: 1,
    })
    expect(await snap()).toEqual({ changed: none, manifest: ['.gitignore', 'a.ts', 'src/b.ts'], listings: 1 })
    expect(await snap()).toEqual({ changed: none, manifest: ['.gitignore', 'a.ts', 'src/b.ts'], listings: 1 })

    fs.appendFileSync(path.join(root, 'src/b.ts'), 'more')
    expect(await snap()).toEqual({
      changed: { added: [], modified: ['src/b.ts'], deleted: [] },
      manifest: ['.gitignore', 'a.ts', 'src/b.ts'],
      listings: 1,
    })
  })

  it('sees a file added in a directory that already held files', async () => {
    const { root, snap } = await setup({ 'src/a.ts': 'a' })
    await snap()
    write(root, 'src/new.ts', 'n')
    expect(await snap()).toEqual({
      changed: { added: ['src/new.ts'], modified: [], deleted: [] },
      manifest: ['src/a.ts', 'src/new.ts'],
      listings: 2,
    })
    expect((await snap()).listings).toBe(2)
  })

  it('sees a file added in a directory that was empty', async () => {
    const { root, snap } = await setup({ 'a.ts': 'a' }, ['empty/inner'])
    await snap()
    write(root, 'empty/inner/new.ts', 'n')
    expect(await snap()).toEqual({
      changed: { added: ['empty/inner/new.ts'], modified: [], deleted: [] },
      manifest: ['a.ts', 'empty/inner/new.ts'],
      listings: 2,
    })
  })

  it('sees a file added in a directory whose other files are all ignored', async () => {
    const { root, snap } = await setup({ '.gitignore': '*.log\n', 'logs/old.log': 'x', 'a.ts': 'a' })
    expect((await snap()).manifest).toEqual(['.gitignore', 'a.ts'])
    write(root, 'logs/new.ts', 'n')
    expect(await snap()).toEqual({
      changed: { added: ['logs/new.ts'], modified: [], deleted: [] },
      manifest: ['.gitignore', 'a.ts', 'logs/new.ts'],
      listings: 2,
    })
  })

  it('sees a file in a new nested directory', async () => {
    const { root, snap } = await setup({ 'src/a.ts': 'a' })
    await snap()
    write(root, 'src/deep/er/x.ts', 'x')
    expect(await snap()).toEqual({
      changed: { added: ['src/deep/er/x.ts'], modified: [], deleted: [] },
      manifest: ['src/a.ts', 'src/deep/er/x.ts'],
      listings: 2,
    })
  })

  it('sees a file deleted', async () => {
    const { root, snap } = await setup({ 'src/a.ts': 'a', 'src/b.ts': 'b' })
    await snap()
    fs.rmSync(path.join(root, 'src/b.ts'))
    expect(await snap()).toEqual({
      changed: { added: [], modified: [], deleted: ['src/b.ts'] },
      manifest: ['src/a.ts'],
      listings: 2,
    })
  })

  it('sees a file renamed, in its directory and into another', async () => {
    const { root, snap } = await setup({ 'src/a.ts': 'a', 'lib/b.ts': 'b' })
    await snap()
    fs.renameSync(path.join(root, 'src/a.ts'), path.join(root, 'src/c.ts'))
    expect(await snap()).toEqual({
      changed: { added: ['src/c.ts'], deleted: ['src/a.ts'], modified: [] },
      manifest: ['lib/b.ts', 'src/c.ts'],
      listings: 2,
    })
    fs.renameSync(path.join(root, 'lib/b.ts'), path.join(root, 'src/b.ts'))
    expect(await snap()).toEqual({
      changed: { added: ['src/b.ts'], deleted: ['lib/b.ts'], modified: [] },
      manifest: ['src/b.ts', 'src/c.ts'],
      listings: 3,
    })
  })

  it('sees a .gitignore edited in place to un-ignore a file, at the root and deeper', async () => {
    const { root, snap } = await setup({
      '.gitignore': '*.log\n',
      'keep.log': 'k',
      'sub/.gitignore': '*.tmp\n',
      'sub/x.tmp': 'x',
    })
    expect((await snap()).manifest).toEqual(['.gitignore', 'sub/.gitignore'])
    const dirMtime = fs.statSync(root).mtimeMs
    fs.writeFileSync(path.join(root, '.gitignore'), '*.txt\n')
    expect(fs.statSync(root).mtimeMs).toBe(dirMtime) // the directory itself did not change
    expect(await snap()).toEqual({
      changed: { added: ['keep.log'], modified: ['.gitignore'], deleted: [] },
      manifest: ['.gitignore', 'keep.log', 'sub/.gitignore'],
      listings: 2,
    })
    fs.writeFileSync(path.join(root, 'sub/.gitignore'), '')
    expect(await snap()).toEqual({
      changed: { added: ['sub/x.tmp'], modified: ['sub/.gitignore'], deleted: [] },
      manifest: ['.gitignore', 'keep.log', 'sub/.gitignore', 'sub/x.tmp'],
      listings: 3,
    })
  })

  it('sees a .gitignore the listing itself leaves out', async () => {
    const { root, snap } = await setup({ '.gitignore': '.gitignore\n*.log\n', 'keep.log': 'k', 'a.ts': 'a' })
    expect((await snap()).manifest).toEqual(['a.ts'])
    fs.writeFileSync(path.join(root, '.gitignore'), '.gitignore\n')
    expect(await snap()).toEqual({
      changed: { added: ['keep.log'], modified: [], deleted: [] },
      manifest: ['a.ts', 'keep.log'],
      listings: 2,
    })
  })

  it('reads a racily clean file again even when nothing else changed', async () => {
    const { root, snapshotter, snap } = await setup({ 'a.ts': 'AAAA' })
    const file = path.join(root, 'a.ts')
    // Whole seconds survive utimes exactly; "now" is within the margin of the snapshot.
    const mtime = Math.floor(Date.now() / 1000)
    fs.utimesSync(file, mtime, mtime)
    await snap()
    fs.writeFileSync(file, 'ZZZZ')
    fs.utimesSync(file, mtime, mtime)
    expect(await snap()).toEqual({
      changed: { added: [], modified: ['a.ts'], deleted: [] },
      manifest: ['a.ts'],
      listings: 1,
    })
    const latest = snapshotter.listSnapshots().at(-1)!
    expect(snapshotter.readFileAt(latest.id, 'a.ts')!.toString()).toBe('ZZZZ')
  })

  it('lists again while a directory changed too recently to trust its timestamp', async () => {
    const { root, snap } = await setup({ 'src/a.ts': 'a' }, [], 0)
    expect((await snap()).listings).toBe(1)
    // Every directory here is younger than the margin, so none can vouch for the listing.
    expect(Date.now() - fs.statSync(path.join(root, 'src')).ctimeMs).toBeLessThan(RACY_MARGIN_MS)
    expect(await snap()).toEqual({ changed: none, manifest: ['src/a.ts'], listings: 2 })
  })

  it('keeps listing every time without listDirectories', async () => {
    const root = fs.realpathSync(tempDir('stepwise-tree-'))
    const dataDir = tempDir()
    const store = openStore(dataDir)
    cleanups.push(() => {
      store.close()
      fs.rmSync(root, { recursive: true, force: true })
      fs.rmSync(dataDir, { recursive: true, force: true })
    })
    write(root, 'a.ts', 'a')
    let listings = 0
    const snapshotter = createSnapshotter(snapshotTablesOf(store), {
      root,
      listFiles: async () => (listings++, ['a.ts']),
      now: () => Date.now() + 10 * RACY_MARGIN_MS,
    })
    await snapshotter.takeSnapshot({ sessionId: null })
    await snapshotter.takeSnapshot({ sessionId: null })
    expect(listings).toBe(2)
  })
})

describe('re-reading only the directories that changed', () => {
  const files = { '.gitignore': '*.log\nbuild/\n', 'src/a.ts': 'a', 'src/b.ts': 'b', 'lib/c.ts': 'c' }
  const all = ['.gitignore', 'lib/c.ts', 'src/a.ts', 'src/b.ts']

  it('sees files added and removed in a folder changed a moment ago, without listing again', async () => {
    // The clock is not moved ahead: every directory is too recent to vouch for the listing.
    // (Without a .gitignore: one that recent keeps no listing at all.)
    const { root, snap } = await setup({ 'src/a.ts': 'a', 'src/b.ts': 'b', 'lib/c.ts': 'c' }, [], 0, true)
    expect(await snap()).toMatchObject({ manifest: all.slice(1), listings: 1 })
    expect(Date.now() - fs.statSync(path.join(root, 'src')).mtimeMs).toBeLessThan(RACY_MARGIN_MS)
    write(root, 'src/new.ts', 'n')
    fs.rmSync(path.join(root, 'src/b.ts'))
    expect(await snap()).toEqual({
      changed: { added: ['src/new.ts'], modified: [], deleted: ['src/b.ts'] },
      manifest: ['lib/c.ts', 'src/a.ts', 'src/new.ts'],
      listings: 1,
    })
    expect(await snap()).toEqual({
      changed: none,
      manifest: ['lib/c.ts', 'src/a.ts', 'src/new.ts'],
      listings: 1,
    })
    // Still within the same moment: the folder is read again, so the new name is seen.
    write(root, 'src/b.ts', 'b again')
    write(root, 'top.ts', 't')
    expect(await snap()).toEqual({
      changed: { added: ['src/b.ts', 'top.ts'], modified: [], deleted: [] },
      manifest: ['lib/c.ts', 'src/a.ts', 'src/b.ts', 'src/new.ts', 'top.ts'],
      listings: 1,
    })
  })

  it('trusts a re-read folder afterwards, and still sees its next change', async () => {
    const { root, snap } = await setup(files, [], 10 * RACY_MARGIN_MS, true)
    await snap()
    fs.renameSync(path.join(root, 'src/a.ts'), path.join(root, 'src/z.ts'))
    expect(await snap()).toEqual({
      changed: { added: ['src/z.ts'], modified: [], deleted: ['src/a.ts'] },
      manifest: ['.gitignore', 'lib/c.ts', 'src/b.ts', 'src/z.ts'],
      listings: 1,
    })
    fs.renameSync(path.join(root, 'src/z.ts'), path.join(root, 'lib/z.ts'))
    expect(await snap()).toEqual({
      changed: { added: ['lib/z.ts'], modified: [], deleted: ['src/z.ts'] },
      manifest: ['.gitignore', 'lib/c.ts', 'lib/z.ts', 'src/b.ts'],
      listings: 1,
    })
  })

  it('keeps ignored and denied new names out, files and folders alike', async () => {
    const { root, snap } = await setup(files, [], 10 * RACY_MARGIN_MS, true)
    await snap()
    write(root, 'src/debug.log', 'x')
    write(root, 'src/build/out.js', 'o')
    write(root, '.env', 'SECRET=1')
    write(root, 'src/kept.ts', 'k')
    expect(await snap()).toEqual({
      changed: { added: ['src/kept.ts'], modified: [], deleted: [] },
      manifest: ['.gitignore', 'lib/c.ts', 'src/a.ts', 'src/b.ts', 'src/kept.ts'],
      listings: 1,
    })
    write(root, 'src/more.log', 'y')
    expect(await snap()).toMatchObject({ changed: none, listings: 1 })
  })

  it('lists again for a new folder, a removed folder or a link', async () => {
    const { root, snap } = await setup(files, ['empty'], 10 * RACY_MARGIN_MS, true)
    await snap()
    write(root, 'src/deep/x.ts', 'x')
    expect(await snap()).toMatchObject({ changed: { added: ['src/deep/x.ts'] }, listings: 2 })
    fs.rmSync(path.join(root, 'empty'), { recursive: true })
    expect(await snap()).toMatchObject({ changed: none, listings: 3 })
    fs.rmSync(path.join(root, 'src/deep'), { recursive: true })
    expect(await snap()).toMatchObject({ changed: { deleted: ['src/deep/x.ts'] }, listings: 4 })
    fs.symlinkSync('a.ts', path.join(root, 'src/link.ts'))
    expect(await snap()).toMatchObject({ changed: none, listings: 5 })
  })

  it('lists again when an ignore file changes or appears', async () => {
    const { root, snap } = await setup({ ...files, 'src/old.log': 'o' }, [], 10 * RACY_MARGIN_MS, true)
    expect((await snap()).manifest).toEqual(all)
    write(root, 'src/new.ts', 'n')
    fs.writeFileSync(path.join(root, '.gitignore'), 'build/\n')
    expect(await snap()).toEqual({
      changed: { added: ['src/new.ts', 'src/old.log'], modified: ['.gitignore'], deleted: [] },
      manifest: ['.gitignore', 'lib/c.ts', 'src/a.ts', 'src/b.ts', 'src/new.ts', 'src/old.log'],
      listings: 2,
    })
    write(root, 'src/.gitignore', 'b.ts\n')
    expect(await snap()).toEqual({
      changed: { added: ['src/.gitignore'], modified: [], deleted: ['src/b.ts'] },
      manifest: ['.gitignore', 'lib/c.ts', 'src/.gitignore', 'src/a.ts', 'src/new.ts', 'src/old.log'],
      listings: 3,
    })
  })
})
