import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * The CLI sets a V8 flag once Node has started (young-generation.ts): this checks, on the Node
 * that runs the tests, that the main thread's young generation then keeps its first size, worker
 * threads started or not. Each case is a fresh Node (with tsx, to load the module as written) that
 * starts two workers, waits for them, and allocates objects of which a third survive a while.
 */
const MODULE = path.join(import.meta.dirname, 'young-generation.ts')

/** The main thread's young generation in MB, when it was kept small (or would have been) and at the end. */
function newSpaceMb(keepSmall: boolean): { before: number; after: number } {
  const script = `
    const v8 = require('node:v8')
    const { Worker } = require('node:worker_threads')
    const { keepYoungGenerationSmall } = require(${JSON.stringify(MODULE)})
    const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20
    if (${keepSmall}) keepYoungGenerationSmall()
    const before = size()
    const workers = [1, 2].map(() => new Worker('setTimeout(() => {}, 1000)', { eval: true }))
    Promise.all(workers.map((w) => new Promise((r) => w.once('online', r)))).then(() => setTimeout(() => {
      const kept = []
      for (let i = 0; i < 3e6; i++) {
        const o = { a: i, b: [i] }
        if (i % 3 === 0) kept.push(o)
        if (kept.length > 2e5) kept.length = 0
      }
      process.stdout.write(JSON.stringify({ before, after: size() }))
      for (const w of workers) w.terminate()
    }, 10))
  `
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' })
  return JSON.parse(out) as { before: number; after: number }
}

describe('the young generation of a CLI process', () => {
  it('keeps its first size once kept small, with worker threads started since, and grows without', () => {
    const grown = newSpaceMb(false)
    expect(grown.after).toBeGreaterThan(grown.before)
    const kept = newSpaceMb(true)
    expect(kept.after).toBe(kept.before)
  })
})
