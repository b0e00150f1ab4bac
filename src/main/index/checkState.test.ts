import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkStateFile, loadCheckState, saveCheckState } from './checkState'
import { createCodeIndex, type BuildProgress } from './code-index'
import { indexedProject, tempDir } from './test-support'

const rows = [
  { path: 'a.ts', size: 10, mtimeMs: 1700000000123.5, version: 3 },
  { path: 'dir/é.ts', size: 0, mtimeMs: 1, version: 2 },
]

describe('the index check state', () => {
  it('round-trips its rows at one generation, and is ignored at another, for another root, or garbled', () => {
    const file = checkStateFile(tempDir('stepwise-check-state-'), '/p')
    saveCheckState(file, '/p', 7, rows)
    expect(loadCheckState(file, '/p', 7)).toEqual(rows)
    expect(loadCheckState(file, '/p', 8)).toBeUndefined()
    expect(loadCheckState(file, '/other', 7)).toBeUndefined()
    const whole = fs.readFileSync(file)
    for (const broken of [whole.subarray(0, whole.length - 3), Buffer.from('{"magic":\n'), Buffer.alloc(0)]) {
      fs.writeFileSync(file, broken)
      expect(loadCheckState(file, '/p', 7)).toBeUndefined()
    }
    saveCheckState(file, '/p', 1, [])
    expect(loadCheckState(file, '/p', 1)).toEqual([])
  })

  it('spares the next process reading the rows, and is not trusted once the index changed', async () => {
    const fixture = await indexedProject({ 'a.ts': 'export const a = 1\n', 'b.ts': 'export const b = 2\n' })
    const stateFile = checkStateFile(path.dirname(fixture.store.path), fixture.root)
    const open = () =>
      createCodeIndex(fixture.store.db, {
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
    const generation = Number(
      fixture.store.db.prepare('SELECT generation FROM code_index_roots').pluck().get(),
    )
    const saved = loadCheckState(stateFile, fixture.root, generation)!
    saveCheckState(stateFile, fixture.root, generation, [{ ...saved[0], mtimeMs: 1 }, saved[1]])
    expect(await settledByStat()).toMatchObject({ done: 1, report: { files: 2, parsed: 0, unchanged: 2 } })

    // Changed by an index that keeps no state: the saved rows are stale and not used.
    fs.writeFileSync(path.join(fixture.root, 'c.ts'), 'export const c = 3\n')
    fs.rmSync(path.join(fixture.root, 'b.ts'))
    await createCodeIndex(fixture.store.db, {
      root: fixture.root,
      sandbox: fixture.sandbox,
      workers: 1,
    }).build()
    const after = await settledByStat()
    expect(after.report).toMatchObject({ files: 2, parsed: 0, removed: 0 })
    expect(open().paths()).toEqual(['a.ts', 'c.ts'])
  })
})
