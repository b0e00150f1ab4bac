import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../store/testing/helpers'
import { sharedWatchCount, watchFolder, type FolderListener } from './folderWatches'

// inotify's rules: Linux only (changeTracker.ts watches nowhere else).
const linux = process.platform === 'linux'

const stops: Array<() => void> = []
afterEach(() => {
  for (const stop of stops.splice(0)) stop()
})

/** A listener that records the names it is told ('(gone)' for `onGone`), and a wait for one of them. */
function recorder(): FolderListener & { names: string[]; errors: number; saw(name: string): Promise<void> } {
  const names: string[] = []
  const r = {
    names,
    errors: 0,
    onEvent: (name: string | undefined) => void names.push(name ?? '(none)'),
    onError: () => void r.errors++,
    onGone: () => void names.push('(gone)'),
    async saw(name: string) {
      for (let waited = 0; !names.includes(name); waited += 10) {
        if (waited > 5000) throw new Error(`no event for ${name}: ${JSON.stringify(names)}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
  }
  return r
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100))

function watch(abs: string, listener: FolderListener): () => void {
  const stop = watchFolder(abs, listener)
  stops.push(stop)
  return stop
}

describe.runIf(linux)('watchFolder', () => {
  it('shares one watch between the subscribers of a folder, each told every event until it stops', async () => {
    const dir = tempDir('stepwise-fw-')
    const before = sharedWatchCount()
    const a = recorder()
    const b = recorder()
    const stopA = watch(dir, a)
    watch(dir, b)
    expect(sharedWatchCount()).toBe(before + 1)
    fs.writeFileSync(path.join(dir, 'one.txt'), '1')
    await a.saw('one.txt')
    await b.saw('one.txt')
    stopA()
    expect(sharedWatchCount()).toBe(before + 1) // b still holds it
    fs.writeFileSync(path.join(dir, 'two.txt'), '2')
    await b.saw('two.txt')
    await settle()
    expect(a.names).not.toContain('two.txt')
    expect(b.names).not.toContain('(gone)') // entries changed, not the folder
    stops.splice(0).forEach((stop) => stop())
    expect(sharedWatchCount()).toBe(before)
  })

  it('tells a subscriber that joins a folder replaced under the same name of the change', async () => {
    const parent = tempDir('stepwise-fw-')
    const dir = path.join(parent, 'src')
    fs.mkdirSync(dir)
    const old = recorder()
    watch(dir, old)
    // Deleted and made again in one go: the old watch's events are still queued when the next
    // subscriber comes. A new folder with another inode gets a new watch; one that reuses the
    // old inode's number (tmpfs does) joins the old watch and is told the folder is gone, which
    // its subscribers take as "watch afresh" (changeTracker.ts). Either way it is told.
    fs.rmSync(dir, { recursive: true })
    fs.mkdirSync(dir)
    const fresh = recorder()
    watch(dir, fresh)
    fs.writeFileSync(path.join(dir, 'new.ts'), 'x')
    await old.saw('(gone)') // the old folder's own deletion reaches its subscriber
    await settle()
    expect(fresh.names.includes('new.ts') || fresh.names.includes('(gone)')).toBe(true)
    expect(old.names).not.toContain('new.ts')
  })

  it("leaves a watch that told its folder's own deletion to those it has", async () => {
    const parent = tempDir('stepwise-fw-')
    const dir = path.join(parent, 'lib')
    fs.mkdirSync(dir)
    const before = sharedWatchCount()
    const old = recorder()
    watch(dir, old)
    fs.rmSync(dir, { recursive: true })
    await old.saw('(gone)')
    // Told as an event of its own name first, then as gone.
    expect(old.names.indexOf('lib')).toBeGreaterThanOrEqual(0)
    expect(old.names.indexOf('lib')).toBeLessThan(old.names.indexOf('(gone)'))
    expect(sharedWatchCount()).toBe(before) // no one new joins it
    fs.mkdirSync(dir)
    const fresh = recorder()
    watch(dir, fresh)
    fs.writeFileSync(path.join(dir, 'a.ts'), 'x')
    await fresh.saw('a.ts')
  })

  it('throws as fs.watch does for a folder that is not there, sharing nothing', () => {
    const before = sharedWatchCount()
    expect(() => watchFolder(path.join(os.tmpdir(), 'stepwise-fw-absent', 'x'), recorder())).toThrow(/ENOENT/)
    expect(sharedWatchCount()).toBe(before)
  })
})
