import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { BACKGROUND_NICE, POOL_THRESHOLD, processAll, workerCountAt } from './pool'
import type { FileOutcome } from './process-file'
import { tempDir, writeTree } from './test-support'
import { pushAll } from '../../shared/arrays'
import { foreground } from '../foreground'

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
  it.each([
    ['worker threads', 1, 3],
    ['in process', 0, 1],
  ])(
    "sends no batch while an agent's step holds the foreground (%s), and the rest once it ends",
    async (_, threads, batchesSent) => {
      const root = tempDir('stepwise-pool-held-')
      const files: Record<string, string> = {}
      for (let i = 0; i < POOL_THRESHOLD + 100; i++) files[`f${i}.ts`] = `export const f${i} = ${i}\n`
      writeTree(root, files)
      const jobs = Object.keys(files).map((rel) => ({ rel, abs: path.join(root, rel) }))
      const out: FileOutcome[] = []
      let release: (() => void) | undefined
      let firstBatch: () => void
      const warm = new Promise<void>((resolve) => (firstBatch = resolve))
      const done = processAll(jobs, {
        threads,
        onResults: (batch) => {
          pushAll(out, batch)
          if (release) return
          release = foreground.hold() // a step starts once the parser is warm
          firstBatch()
        },
      })
      await warm
      // Long enough for a warm parser to finish all 300 files without the hold.
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Only what was sent before the hold comes back (48 files a batch): in process the batch that
      // took it; from a worker that one and the two it keeps in flight.
      expect(out.length).toBeLessThanOrEqual(48 * batchesSent)
      release!()
      await done
      expect(out).toHaveLength(jobs.length)
    },
  )

  it("starts no worker while an agent's turn holds the foreground, and each once it ends", async () => {
    const jobs = Array.from({ length: POOL_THRESHOLD + 200 }, (_, i) => ({
      rel: `f${i}.ts`,
      abs: `/nowhere/f${i}.ts`,
    }))
    const out: FileOutcome[] = []
    let started = 0
    const release = foreground.hold()
    const done = processAll(jobs, {
      threads: 2,
      startWorker: () => (started++, stubWorker()),
      onResults: (batch) => pushAll(out, batch),
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(started).toBe(0)
    release()
    const { workersUsed } = await done
    expect(workersUsed).toBe(2)
    expect(out).toHaveLength(jobs.length)
  })
})

/**
 * A stand-in parse worker (the pool is under test, not the parser): answers each batch with
 * 'unchanged'; with `dieAfterMs` set, it throws that long after its second answer.
 */
function stubWorker(dieAfterMs?: number): Worker {
  const script = `
    const { parentPort } = require('node:worker_threads')
    let answered = 0
    parentPort.on('message', (request) => {
      parentPort.postMessage({ id: request.id, results: request.jobs.map((job) => ({ rel: job.rel, status: 'unchanged' })) })
      if (++answered === 2 && ${dieAfterMs ?? -1} >= 0) setTimeout(() => { throw new Error('parser crashed') }, ${dieAfterMs ?? 0})
    })`
  return new Worker(script, { eval: true })
}

describe('processAll when a worker dies', () => {
  it('loses no batch when a worker dies while a step holds the foreground', async () => {
    const jobs = Array.from({ length: POOL_THRESHOLD + 200 }, (_, i) => ({
      rel: `f${i}.ts`,
      abs: `/nowhere/f${i}.ts`,
    }))
    const rels: string[] = []
    let release: (() => void) | undefined
    let died!: () => void
    const dead = new Promise<void>((resolve) => (died = resolve))
    const dying = () => {
      const worker = stubWorker(100)
      worker.once('exit', died)
      return worker
    }
    let started = 0
    const done = processAll(jobs, {
      threads: 2,
      startWorker: () => (started++ === 0 ? dying() : stubWorker()),
      onResults: (batch) => {
        for (const outcome of batch) rels.push(outcome.rel)
        release ??= foreground.hold() // a step starts: the dying worker's next batch waits for it
      },
    })
    // The step ends after the worker has died: its deferred turn must not take a batch to it.
    await dead
    release!()
    await done
    expect(rels).toHaveLength(jobs.length)
    expect(new Set(rels).size).toBe(jobs.length)
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
