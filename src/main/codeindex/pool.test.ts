import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { BACKGROUND_NICE, POOL_THRESHOLD, processAll, workerCountAt } from './pool'
import type { FileOutcome } from './process-file'
import { tempDir, writeTree } from './test-support'
import { pushAll } from '../../shared/arrays'

describe('processAll', () => {
  it('gives the same outcomes from worker threads as in process', async () => {
    const root = tempDir('stepwise-pool-')
    const files: Record<string, string> = {}
    for (let i = 0; i < POOL_THRESHOLD + 20; i++)
      files[`src/f${i}.ts`] =
        `import { x${i} } from './f${i + 1}'\nexport function f${i}(a: number) { return a + ${i} }\n`
    writeTree(root, files)
    const jobs = Object.keys(files).map((rel) => ({ rel, abs: path.join(root, rel) }))
    jobs.push({ rel: 'missing.ts', abs: path.join(root, 'missing.ts') })

    const collect = async (threads: number) => {
      const out: FileOutcome[] = []
      const { workersUsed } = await processAll(jobs, { threads, onResults: (b) => pushAll(out, b) })
      return { workersUsed, out: out.sort((a, b) => (a.rel < b.rel ? -1 : 1)) }
    }
    const pooled = await collect(2)
    const single = await collect(1)
    const inline = await collect(0)
    expect(pooled.workersUsed).toBe(2)
    expect(single.workersUsed).toBe(1)
    expect(inline.workersUsed).toBe(0)
    expect(pooled.out).toHaveLength(jobs.length)
    expect(pooled.out).toEqual(inline.out)
    expect(single.out).toEqual(inline.out)
    expect(pooled.out.find((o) => o.rel === 'missing.ts')).toEqual({ rel: 'missing.ts', status: 'gone' })
  })
})

describe('workerCountAt', () => {
  it('leaves one core to the agent loop in a background build, none in one someone waits on', () => {
    const cores = os.availableParallelism()
    expect(workerCountAt(0)).toBe(Math.max(1, Math.min(4, cores)))
    expect(workerCountAt(BACKGROUND_NICE)).toBe(Math.max(1, Math.min(4, cores - 1)))
    expect(workerCountAt()).toBe(workerCountAt(BACKGROUND_NICE))
  })
})
