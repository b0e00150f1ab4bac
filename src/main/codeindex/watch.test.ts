import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { UpdateReport } from './code-index'
import { indexedProject } from './test-support'
import { watchIndex } from './watch'
import { foreground } from '../foreground'
import { until } from '../store/testing/helpers'

/** Polls `check` until it holds; no fixed sleeps. */
const caughtUp = (check: () => boolean, timeoutMs = 5000): Promise<boolean> =>
  until('the index to catch up', check, timeoutMs)

describe('watchIndex', () => {
  it('re-indexes saved, added and deleted files, skipping ignored ones, in one debounced update', async () => {
    const { index, root, sandbox } = await indexedProject({
      '.gitignore': 'build/\n',
      'src/a.ts': 'export function a() {}\n',
      'src/b.ts': "import { a } from './a'\n",
    })
    await index.build()
    const reports: UpdateReport[] = []
    const watcher = watchIndex(index, { sandbox, onUpdate: (r) => reports.push(r) })
    onTestFinished(() => watcher.close())
    await watcher.ready

    fs.writeFileSync(path.join(root, 'src/a.ts'), 'export function a() {}\nexport function renamed() {}\n')
    fs.writeFileSync(path.join(root, 'src/c.ts'), "import { a } from './a'\n")
    fs.mkdirSync(path.join(root, 'build'))
    fs.writeFileSync(path.join(root, 'build/out.ts'), 'export const out = 1\n')
    fs.rmSync(path.join(root, 'src/b.ts'))
    await caughtUp(
      () =>
        index.file('src/c.ts') !== undefined &&
        index.file('src/b.ts') === undefined &&
        index.definitions('renamed').length === 1,
    )

    expect(index.dependents('src/a.ts')).toEqual(['src/c.ts'])
    expect(index.file('build/out.ts')).toBeUndefined()
    const parsed = reports.flatMap((r) => r.parsed).sort()
    expect(parsed).toEqual(['src/a.ts', 'src/c.ts'])
    expect(reports.flatMap((r) => r.removed)).toEqual(['src/b.ts'])
  })

  it('follows new, renamed and deleted directories, with the files that landed before their watch', async () => {
    const { index, root, sandbox } = await indexedProject({ 'src/a.ts': 'export function a() {}\n' })
    await index.build()
    const watcher = watchIndex(index, { sandbox, debounceMs: 50 })
    onTestFinished(() => watcher.close())
    await watcher.ready

    // Created in one go: the files exist before any watch on their folders can.
    fs.mkdirSync(path.join(root, 'lib/deep/er'), { recursive: true })
    fs.writeFileSync(path.join(root, 'lib/deep/er/b.ts'), 'export function fromDeep() {}\n')
    fs.writeFileSync(path.join(root, 'lib/c.ts'), 'export function fromLib() {}\n')
    await caughtUp(
      () => index.definitions('fromDeep').length === 1 && index.definitions('fromLib').length === 1,
    )

    // Watched now: a later save in the new folder is seen too.
    fs.writeFileSync(path.join(root, 'lib/deep/er/d.ts'), 'export function later() {}\n')
    await caughtUp(() => index.definitions('later').length === 1)

    fs.renameSync(path.join(root, 'lib'), path.join(root, 'moved'))
    await caughtUp(() => index.file('lib/c.ts') === undefined && index.file('moved/c.ts') !== undefined)
    expect(index.file('moved/deep/er/d.ts')).toBeDefined()

    fs.rmSync(path.join(root, 'moved'), { recursive: true })
    await caughtUp(() => index.file('moved/c.ts') === undefined && index.definitions('later').length === 0)
  })

  it('stops reporting after close()', async () => {
    const { index, root, sandbox } = await indexedProject({ 'a.ts': 'export const a = 1\n' })
    await index.build()
    const watcher = watchIndex(index, { sandbox, debounceMs: 50 })
    await watcher.ready
    await watcher.close()
    fs.writeFileSync(path.join(root, 'b.ts'), 'export const b = 1\n')
    await watcher.flush()
    expect(index.file('b.ts')).toBeUndefined()
  })

  it('closes mid-walk without waiting for it: the walk stops and no watch reports afterwards', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 600; i++) files[`d${i}/f.ts`] = `export const f${i} = ${i}\n`
    const { index, root, sandbox } = await indexedProject(files)
    await index.build()
    const reports: UpdateReport[] = []
    const watcher = watchIndex(index, { sandbox, debounceMs: 50, onUpdate: (r) => reports.push(r) })
    await watcher.close()
    await watcher.ready // the walk ends at its next directory
    for (const dir of ['d0', 'd299', 'd599'])
      fs.writeFileSync(path.join(root, dir, 'new.ts'), 'export const n = 1\n')
    await watcher.flush()
    expect(reports).toEqual([])
    expect(index.file('d0/new.ts')).toBeUndefined()
  })

  it('past its watch budget closes every watch and rescans the tree instead', async () => {
    // 40 folders against a budget of 10 (the default is watchBudget(); 60,000 folders once took 60,006 watches).
    const files: Record<string, string> = {}
    for (let i = 0; i < 40; i++) files[`d${i}/f.ts`] = `export const f${i} = ${i}\n`
    const { index, root, sandbox } = await indexedProject(files)
    await index.build()
    let told = 0
    const watcher = watchIndex(index, {
      sandbox,
      debounceMs: 20,
      watchBudget: 10,
      rescanMs: 50,
      onOverBudget: () => told++,
    })
    onTestFinished(() => watcher.close())
    await watcher.ready
    expect(watcher.state()).toEqual({ watches: 0, rescanning: true })
    expect(told).toBe(1)
    fs.writeFileSync(path.join(root, 'd39', 'late.ts'), 'export function late() {}\n')
    fs.rmSync(path.join(root, 'd0'), { recursive: true })
    await caughtUp(() => index.definitions('late').length === 1 && index.file('d0/f.ts') === undefined)
  })

  it("sets up no watch while an agent's step holds the foreground, and all of them once it ends", async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 9; i++) files[`d${i}/f.ts`] = `export const f${i} = ${i}\n`
    const { index, sandbox } = await indexedProject(files)
    await index.build()
    const release = foreground.hold()
    const watcher = watchIndex(index, { sandbox })
    onTestFinished(() => watcher.close())
    let ready = false
    void watcher.ready.then(() => (ready = true))
    // Long enough for the whole walk of ten folders without the hold.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect({ ready, ...watcher.state() }).toEqual({ ready: false, watches: 0, rescanning: false })
    release()
    await watcher.ready
    expect(watcher.state()).toEqual({ watches: 10, rescanning: false })
  })

  it("judges no entry of a folder whose read was out when an agent's step began", async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 9; i++) files[`d${i}/f.ts`] = `export const f${i} = ${i}\n`
    const { index, sandbox } = await indexedProject(files)
    await index.build()
    let judged = 0
    const counting = {
      ...sandbox,
      isIgnored: (rel: string, isDir?: boolean) => (judged++, sandbox.isIgnored(rel, isDir)),
    }
    const watcher = watchIndex(index, { sandbox: counting })
    onTestFinished(() => watcher.close())
    // The walk has asked the foreground and goes on to read the root: the step begins meanwhile.
    const release = foreground.hold()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect({ judged, ...watcher.state() }).toEqual({ judged: 0, watches: 1, rescanning: false })
    release()
    await watcher.ready
    expect(judged).toBeGreaterThanOrEqual(9)
    expect(watcher.state()).toEqual({ watches: 10, rescanning: false })
  })

  it('under its budget watches every folder', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 9; i++) files[`d${i}/f.ts`] = `export const f${i} = ${i}\n`
    const { index, sandbox } = await indexedProject(files)
    await index.build()
    const watcher = watchIndex(index, { sandbox, watchBudget: 10 })
    onTestFinished(() => watcher.close())
    await watcher.ready
    expect(watcher.state()).toEqual({ watches: 10, rescanning: false })
  })
})
