import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

/*
 * The CLI sets a V8 flag once Node has started (old-generation.ts): this checks, on the Node that
 * runs the tests, that the old generation then stays closer to what is live. Each case is a fresh
 * Node (with tsx, to load the module as written) that holds ~20 MB live and makes old garbage as a
 * first baseline does: objects that live through a few young collections, then die.
 */
const MODULE = path.join(import.meta.dirname, 'old-generation.ts')

/** The largest the main thread's heap grew to, in MB, with the flag set or not. */
function peakHeapMb(tight: boolean): number {
  const script = `
    const v8 = require('node:v8')
    const { keepOldGenerationTight } = require(${JSON.stringify(MODULE)})
    if (${tight}) keepOldGenerationTight()
    const live = Array.from({ length: 2e5 }, (_, i) => ({ i, name: 'file-' + i }))
    const batches = []
    let peak = 0
    for (let round = 0; round < 400; round++) {
      batches.push(Array.from({ length: 2e4 }, (_, i) => ({ round, i, text: 'x' + i })))
      if (batches.length > 8) batches.shift()
      peak = Math.max(peak, v8.getHeapStatistics().total_heap_size)
    }
    process.stdout.write(JSON.stringify({ peakMb: peak / 2 ** 20, live: live.length }))
  `
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' })
  return (JSON.parse(out) as { peakMb: number }).peakMb
}

describe('the old generation of a CLI process', () => {
  it('grows less past what is live once kept tight', () => {
    const loose = peakHeapMb(false)
    const tight = peakHeapMb(true)
    expect(tight).toBeLessThan(loose * 0.8)
  })
})
