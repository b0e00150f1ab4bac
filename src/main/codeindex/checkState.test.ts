import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { statFiles } from '../snapshot/statFiles'
import { openCodeIndexTables } from '../store/code-index-tables'
import { checkStateFile, loadCheckState, saveCheckState } from './checkState'
import { createCodeIndex, type BuildProgress, type VouchedListing } from './code-index'
import { indexedProject, tempDir } from './test-support'

const rows = [
  { path: 'a.ts', size: 10, mtimeMs: 1700000000123.5, version: 3 },
  { path: 'dir/é.ts', size: 0, mtimeMs: 1, version: 2 },
]

describe('the index check state', () => {
  it('round-trips its rows at one generation, and is ignored at another, for another root, or garbled', () => {
    const file = checkStateFile(tempDir('stepwise-check-state-'), '/p')
    saveCheckState(file, { root: '/p', generation: 7, rows })
    expect(loadCheckState(file, '/p', 7)).toEqual(rows)
    expect(loadCheckState(file, '/p', 8)).toBeUndefined()
    expect(loadCheckState(file, '/other', 7)).toBeUndefined()
    const whole = fs.readFileSync(file)
    for (const broken of [whole.subarray(0, whole.length - 3), Buffer.from('{"magic":\n'), Buffer.alloc(0)]) {
      fs.writeFileSync(file, broken)
      expect(loadCheckState(file, '/p', 7)).toBeUndefined()
    }
    saveCheckState(file, { root: '/p', generation: 1, rows: [] })
    expect(loadCheckState(file, '/p', 1)).toEqual([])
  })

  it('spares the next process reading the rows, and is not trusted once the index changed', async () => {
    const fixture = await indexedProject({ 'a.ts': 'export const a = 1\n', 'b.ts': 'export const b = 2\n' })
    const stateFile = checkStateFile(path.dirname(fixture.store.path), fixture.root)
    const open = () =>
      createCodeIndex(fixture.store, {
        root: fixture.root,
        sandbox: fixture.sandbox,
        workers: 1,
        stateFile,
      })
    await open().build()
    // Settled by stat after the check: the progress report right after it.
    const settledByStat = async () => {
      const seen: BuildProgress[] = []
      const report = await open().build({ onProgress: (p) => seen.push(p) })
      return { report, done: seen.filter((p) => p.phase === 'indexing')[1]?.done }
    }
    expect(await settledByStat()).toMatchObject({ done: 2, report: { files: 2, parsed: 0 } })

    // Proof the saved rows are what the check reads: one tampered with at the same
    // generation sends its file to be looked at again (its content is unchanged).
    const generation = openCodeIndexTables(fixture.store, fixture.root).generation()
    const saved = loadCheckState(stateFile, fixture.root, generation)!
    saveCheckState(stateFile, {
      root: fixture.root,
      generation,
      rows: [{ ...saved[0], mtimeMs: 1 }, saved[1]],
    })
    expect(await settledByStat()).toMatchObject({ done: 1, report: { files: 2, parsed: 0, unchanged: 2 } })

    // Changed by an index that keeps no state: the saved rows are stale and not used.
    fs.writeFileSync(path.join(fixture.root, 'c.ts'), 'export const c = 3\n')
    fs.rmSync(path.join(fixture.root, 'b.ts'))
    await createCodeIndex(fixture.store, {
      root: fixture.root,
      sandbox: fixture.sandbox,
      workers: 1,
    }).build()
    const after = await settledByStat()
    expect(after.report).toMatchObject({ files: 2, parsed: 0, removed: 0 })
    expect(open().paths()).toEqual(['a.ts', 'c.ts'])
  })

  it('checks by the stats a baseline just took, and not at all on a tree unchanged since a finished check', async () => {
    const fixture = await indexedProject({ 'a.ts': 'export const a = 1\n', 'b.ts': 'export const b = 2\n' })
    const stateFile = checkStateFile(path.dirname(fixture.store.path), fixture.root)
    const index = createCodeIndex(fixture.store, {
      root: fixture.root,
      sandbox: fixture.sandbox,
      workers: 1,
      stateFile,
    })
    await index.build()
    const paths = ['a.ts', 'b.ts']
    const statsBefore = await statFiles(fixture.root, paths)
    const build = async (listing: VouchedListing) => {
      const phases = new Set<string>()
      const report = await index.build({
        listing: async () => listing,
        onProgress: (p) => phases.add(p.phase),
      })
      return { report, checked: phases.has('indexing') }
    }
    const header = () => JSON.parse(fs.readFileSync(stateFile, 'utf8').split('\n')[0]) as { tree?: string }

    // A tree the baseline found as snapshot M1 left it: checked once, and named in the state.
    expect(await build({ paths, stats: statsBefore, unchangedSince: 'M1' })).toMatchObject({
      checked: true,
      report: { files: 2, parsed: 0, unchanged: 2 },
    })
    expect(header().tree).toBe('M1')

    // Edited behind the vouching: with M1 again nothing is checked (that is the contract);
    // with the stats taken before the edit, the check believes them and reads nothing.
    fs.writeFileSync(path.join(fixture.root, 'a.ts'), 'export const a = 10\n')
    expect(await build({ paths, stats: statsBefore, unchangedSince: 'M1' })).toEqual({
      checked: false,
      report: expect.objectContaining({ files: 2, parsed: 0, unchanged: 2, aborted: false }),
    })
    expect(await build({ paths, stats: statsBefore })).toMatchObject({ checked: true, report: { parsed: 0 } })
    expect(header().tree).toBeUndefined() // saved again by a check that could name no tree

    // Another tree, with its own stats: the edit is seen, and M2 named once the check finished.
    const statsNow = await statFiles(fixture.root, paths)
    expect(await build({ paths, stats: statsNow, unchangedSince: 'M2' })).toMatchObject({
      checked: true,
      report: { parsed: 1, unchanged: 1 },
    })
    expect(header().tree).toBe('M2')
    expect(await build({ paths, stats: statsNow, unchangedSince: 'M2' })).toMatchObject({ checked: false })

    // The index changed since (a file updated alone): the state no longer speaks for it.
    fs.writeFileSync(path.join(fixture.root, 'b.ts'), 'export const b = 20\n')
    await index.update(['b.ts'])
    expect(
      await build({ paths, stats: await statFiles(fixture.root, paths), unchangedSince: 'M2' }),
    ).toMatchObject({ checked: true, report: { parsed: 0, unchanged: 2 } })
  })
})
