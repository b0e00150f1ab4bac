import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createSandbox } from '../containment/sandbox'
import { openStore } from '../store/store'
import { tempDir } from '../store/testing/helpers'
import { createChangeTracker, watchBudget } from './changeTracker'
import { listUnignoredDirectories } from './directories'
import { RACY_MARGIN_MS } from './statCache'
import { createSnapshotter } from './snapshotter'
import { snapshotTablesOf } from '../store/snapshot-tables'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function tree(files: Record<string, string>): string {
  const root = fs.realpathSync(tempDir('stepwise-watch-'))
  for (const [rel, content] of Object.entries(files)) write(root, rel, content)
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  return root
}

function write(root: string, rel: string, content: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), content)
}

describe('createChangeTracker', () => {
  it('names what changed in the watched directories since the last collect, and only that', async () => {
    const root = tree({ 'a.ts': 'a', 'src/b.ts': 'b', 'other/c.ts': 'c' })
    const tracker = createChangeTracker(root)
    cleanups.push(() => tracker.close())
    expect((await tracker.collect()).trusted).toBe(false) // watching nothing yet
    tracker.watch(['', 'src'])
    expect(tracker.watching).toBe(true)

    write(root, 'src/b.ts', 'B')
    fs.rmSync(path.join(root, 'a.ts'))
    write(root, 'other/c.ts', 'C') // not a watched directory
    const first = await tracker.collect()
    expect(first.trusted).toBe(true)
    expect([...first.paths].sort()).toEqual(['a.ts', 'src/b.ts'])

    const second = await tracker.collect()
    expect(second).toEqual({ trusted: true, paths: new Set() })
  })

  it('stops vouching when more events arrive than it may count, and for good once closed', async () => {
    const root = tree({ 'src/a.ts': 'a' })
    const tracker = createChangeTracker(root, { maxEvents: 5 })
    tracker.watch(['src'])
    for (let i = 0; i < 10; i++) write(root, `src/f${i}.ts`, String(i))
    expect((await tracker.collect()).trusted).toBe(false)
    write(root, 'src/a.ts', 'again')
    expect(await tracker.collect()).toEqual({ trusted: true, paths: new Set(['src/a.ts']) })

    tracker.close()
    tracker.watch(['src'])
    expect(tracker.watching).toBe(false)
    expect((await tracker.collect()).trusted).toBe(false)
  })

  it('does not watch on a platform other than Linux: snapshots there stat every file', async () => {
    const root = tree({ 'src/a.ts': 'a' })
    const tracker = createChangeTracker(root, { platform: 'darwin' })
    tracker.watch(['src'])
    expect(tracker.watching).toBe(false)
    write(root, 'src/a.ts', 'b')
    expect((await tracker.collect()).trusted).toBe(false)
  })

  it('does not watch more folders than its budget: they are walked instead', async () => {
    const root = tree({ 'a/x': '', 'b/x': '', 'c/x': '' })
    const tracker = createChangeTracker(root, { watchBudget: 3 })
    cleanups.push(() => tracker.close())
    tracker.watch(['', 'a', 'b', 'c'])
    expect(tracker.watching).toBe(false)
    expect((await tracker.collect()).trusted).toBe(false)
    tracker.watch(['', 'a', 'b'])
    expect(tracker.watching).toBe(true)
    expect(watchBudget()).toBeGreaterThan(0)
    expect(watchBudget()).toBeLessThanOrEqual(10_000)
  })

  it('does not watch when a directory it is given is gone', () => {
    const root = tree({ 'src/a.ts': 'a' })
    const tracker = createChangeTracker(root)
    cleanups.push(() => tracker.close())
    tracker.watch(['src', 'gone'])
    expect(tracker.watching).toBe(false)
  })

  it('vouches for nothing it missed in a folder replaced while another tracker kept its watch', async () => {
    const root = tree({ 'src/a.ts': 'a' })
    // Another watcher of the same folder (the code index, the secrets walk) keeps the shared watch.
    const keeper = createChangeTracker(root)
    const tracker = createChangeTracker(root)
    cleanups.push(
      () => keeper.close(),
      () => tracker.close(),
    )
    keeper.watch(['src'])
    fs.rmSync(path.join(root, 'src'), { recursive: true })
    fs.mkdirSync(path.join(root, 'src'))
    tracker.watch(['src'])
    write(root, 'src/new.ts', 'n')
    const report = await tracker.collect()
    // Either it watches the new folder, or it heard the old one's deletion and does not vouch.
    expect(!report.trusted || report.paths.has('src/new.ts'), JSON.stringify([...report.paths])).toBe(true)
    expect((await keeper.collect()).trusted).toBe(false) // its folder went away under it
  })
})

/**
 * Two snapshotters over one tree, wired as the app wires them: one watching
 * (`watch: true`), one that stats every file each time. Whatever happens to the
 * tree, both must capture the same files with the same contents and modes.
 */
async function pair(files: Record<string, string>) {
  const root = tree(files)
  const sandbox = await createSandbox(root)
  const wiring = {
    root,
    listFiles: async () => (await sandbox.listFiles()).files,
    listDirectories: () => listUnignoredDirectories(root, (rel) => sandbox.isIgnored(rel)),
    isIgnored: (rel: string) => sandbox.isIgnored(rel),
    now: () => Date.now() + 10 * RACY_MARGIN_MS,
  }
  const stores = [openStore(tempDir()), openStore(tempDir())]
  const watching = createSnapshotter(snapshotTablesOf(stores[0]), { ...wiring, watch: true })
  const stating = createSnapshotter(snapshotTablesOf(stores[1]), wiring)
  cleanups.push(() => {
    watching.close()
    for (const s of stores) s.close()
  })
  const contents = (s: typeof watching, id: number) =>
    s.getManifest(id).map((f) => `${f.path} ${f.hash} ${(f.mode & 0o777).toString(8)}`)
  return {
    root,
    watching,
    stating,
    async snap() {
      const a = await watching.takeSnapshot({ sessionId: null })
      const b = await stating.takeSnapshot({ sessionId: null })
      expect(contents(watching, a.info.id)).toEqual(contents(stating, b.info.id))
      expect(a.changed).toEqual(b.changed)
      return a
    },
  }
}

describe('a watching snapshotter', () => {
  it('re-captures only what events name, and agrees with one that stats every file', async () => {
    const { root, snap } = await pair({
      '.gitignore': 'build/\n',
      'a.ts': 'a',
      'src/b.ts': 'b',
      'src/deep/c.ts': 'c',
      'build/out.js': 'ignored',
    })
    expect((await snap()).how).toBe('stat') // the first one (a baseline) lists and stats, and watches nothing
    expect((await snap()).how).toBe('stat') // the next one stats and starts watching
    expect(await snap()).toMatchObject({ how: 'events', changed: { added: [], modified: [], deleted: [] } })

    // Same size and the old mtime: no stat tells this from the file before, the event does.
    const b = path.join(root, 'src/b.ts')
    const { mtime } = fs.statSync(b)
    fs.writeFileSync(b, 'B')
    fs.utimesSync(b, mtime, mtime)
    fs.chmodSync(path.join(root, 'a.ts'), 0o755)
    write(root, 'src/new.ts', 'new')
    fs.rmSync(path.join(root, 'src/deep/c.ts'))
    write(root, 'build/more.js', 'still ignored')
    const events = await snap()
    expect(events.how).toBe('events')
    expect(events.changed).toEqual({
      added: ['src/new.ts'],
      modified: ['a.ts', 'src/b.ts'],
      deleted: ['src/deep/c.ts'],
    })

    // A new directory is a new listing (and new watches), then events again.
    write(root, 'lib/x.ts', 'x')
    expect(await snap()).toMatchObject({ how: 'stat', changed: { added: ['lib/x.ts'] } })
    write(root, 'lib/x.ts', 'xx')
    expect(await snap()).toMatchObject({ how: 'events', changed: { modified: ['lib/x.ts'] } })

    // A rename inside a folder, and a folder replaced by another of the same name.
    fs.renameSync(path.join(root, 'src/new.ts'), path.join(root, 'src/renamed.ts'))
    expect(await snap()).toMatchObject({ changed: { added: ['src/renamed.ts'], deleted: ['src/new.ts'] } })
    fs.rmSync(path.join(root, 'lib'), { recursive: true })
    write(root, 'lib/x.ts', 'in a new folder')
    expect((await snap()).changed.modified).toEqual(['lib/x.ts'])
    write(root, 'lib/x.ts', 'and changed again')
    expect(await snap()).toMatchObject({ how: 'events', changed: { modified: ['lib/x.ts'] } })

    // A folder moved: its watch would follow it and name the old place.
    write(root, 'src/deep/d.ts', 'd')
    await snap()
    fs.renameSync(path.join(root, 'src/deep'), path.join(root, 'src/deeper'))
    expect((await snap()).changed).toEqual({
      added: ['src/deeper/d.ts'],
      modified: [],
      deleted: ['src/deep/d.ts'],
    })
    write(root, 'src/deeper/d.ts', 'moved and changed')
    expect(await snap()).toMatchObject({ how: 'events', changed: { modified: ['src/deeper/d.ts'] } })
  })

  it('checks the listing only where the events cannot vouch for it', async () => {
    const { root, snap, watching, stating } = await pair({
      'a.ts': 'a',
      'src/b.ts': 'b',
      'src/deep/c.ts': 'c',
    })
    const folders = new Set([root, `${root}/src`, `${root}/src/deep`])
    const spy = vi.spyOn(fs, 'statSync')
    cleanups.push(() => spy.mockRestore())
    /** Stats of the listed folders (the listing's check) during one snapshot of the watching one. */
    const folderStats = async () => {
      spy.mockClear()
      const r = await watching.takeSnapshot({ sessionId: null })
      const stats = spy.mock.calls.filter(([p]) => folders.has(String(p))).length
      const s = await stating.takeSnapshot({ sessionId: null }) // the pair stays in step
      expect(r.changed).toEqual(s.changed)
      return { how: r.how, stats }
    }
    await snap()
    await snap() // stats, and starts watching after its listing was checked
    // A name that came between that check and the watch would be no event: checked once more.
    expect(await folderStats()).toEqual({ how: 'events', stats: 3 })
    // Checked under the watch, and no event since: nothing to stat.
    expect(await folderStats()).toEqual({ how: 'events', stats: 0 })
    expect(await folderStats()).toEqual({ how: 'events', stats: 0 })
    write(root, 'src/deep/new.ts', 'n') // an event: the listing is checked again
    expect(await folderStats()).toEqual({ how: 'events', stats: 3 })
    expect((await snap()).changed).toEqual({ added: [], modified: [], deleted: [] })
    fs.writeFileSync(path.join(root, 'src/b.ts'), 'B')
    expect((await snap()).changed).toEqual({ added: [], modified: ['src/b.ts'], deleted: [] })
  })

  describe('told a change is coming (expectChanges, before a command)', () => {
    it('watches from then on: the checkpoints after it go by events', async () => {
      const { root, snap, watching } = await pair({ 'a.ts': 'a', 'src/b.ts': 'b' })
      expect((await snap()).how).toBe('stat') // a session's baseline watches nothing
      await watching.expectChanges()
      // Without it, this one would stat every file and only start watching.
      expect(await snap()).toMatchObject({ how: 'events', changed: { added: [], modified: [], deleted: [] } })
      write(root, 'src/b.ts', 'changed by the command')
      write(root, 'src/new.ts', 'new')
      // The pair holds it to what stat'ing every file finds.
      expect(await snap()).toMatchObject({
        how: 'events',
        changed: { added: ['src/new.ts'], modified: ['src/b.ts'] },
      })
    })

    it.each([
      {
        what: 'a file changed',
        before: { 'a.ts': 'changed before the command' },
        byCommand: 'src/b.ts',
        changed: { modified: ['a.ts', 'src/b.ts'] },
      },
      {
        what: 'a file added (a new listing)',
        before: { 'src/added.ts': 'added before the command' },
        byCommand: 'a.ts',
        changed: { added: ['src/added.ts'], modified: ['a.ts'] },
      },
    ])('$what before it was told is captured by the stats, and vouched for by nothing', async (c) => {
      const { root, snap, watching } = await pair({ 'a.ts': 'a', 'src/b.ts': 'b' })
      await snap()
      for (const [rel, text] of Object.entries(c.before)) write(root, rel, text)
      await watching.expectChanges()
      write(root, c.byCommand, 'changed by the command')
      expect(await snap()).toMatchObject({ how: 'stat', changed: c.changed })
      expect(await snap()).toMatchObject({ how: 'events', changed: { added: [], modified: [] } })
    })

    it('does nothing before the first snapshot', async () => {
      const { root, snap, watching } = await pair({ 'a.ts': 'a' })
      await watching.expectChanges()
      write(root, 'a.ts', 'changed')
      expect((await snap()).how).toBe('stat')
    })
  })
})
