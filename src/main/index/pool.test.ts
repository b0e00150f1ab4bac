import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { POOL_THRESHOLD, processAll } from './pool'
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

    const collect = async (workers: number) => {
      const out: FileOutcome[] = []
      const { workersUsed } = await processAll(jobs, { workers, onResults: (b) => pushAll(out, b) })
      return { workersUsed, out: out.sort((a, b) => (a.rel < b.rel ? -1 : 1)) }
    }
    const pooled = await collect(2)
    const inline = await collect(1)
    expect(pooled.workersUsed).toBe(2)
    expect(inline.workersUsed).toBe(0)
    expect(pooled.out).toHaveLength(jobs.length)
    expect(pooled.out).toEqual(inline.out)
    expect(pooled.out.find((o) => o.rel === 'missing.ts')).toEqual({ rel: 'missing.ts', status: 'gone' })
  })
})
