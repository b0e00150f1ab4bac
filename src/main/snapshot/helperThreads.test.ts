import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../store/testing/helpers'
import { helperThreads } from './helperThreads'

/*
 * Helper threads must never keep a process alive once their work is answered, and a pool ended on
 * purpose is not a pool given up.
 */

const HERE = path.dirname(new URL(import.meta.url).pathname)

describe('helperThreads', () => {
  it('lets a process exit when one of its helpers was never sent anything', () => {
    // In a process of its own: a helper left referenced would hold it open until the timeout.
    const script = `
      import { helperThreads } from ${JSON.stringify(path.join(HERE, 'helperThreads.ts'))}
      const echo = "const { parentPort } = require('node:worker_threads'); parentPort.on('message', ({ id }) => parentPort.postMessage({ id, out: 42 }))"
      const pool = helperThreads(echo, () => 2)
      console.log(await pool.run({}))
    `
    const file = path.join(tempDir('stepwise-helpers-'), 'run.mts')
    fs.writeFileSync(file, script)
    const child = spawnSync(process.execPath, ['--import', 'tsx', file], {
      encoding: 'utf8',
      timeout: 15_000,
    })
    expect(child.stdout.trim()).toBe('42')
    expect({ status: child.status, signal: child.signal }).toEqual({ status: 0, signal: null })
  }, 20_000)

  it('ends its helpers on stop, answering what was asked with nothing, and starts new ones after', async () => {
    const slowEcho = `const { parentPort } = require('node:worker_threads')
      parentPort.on('message', ({ id, wait }) => setTimeout(() => parentPort.postMessage({ id, out: 42 }), wait))`
    const pool = helperThreads<number>(slowEcho, () => 2)
    expect(await pool.run({ wait: 0 })).toBe(42)
    const first = pool.get()!.map((h) => h.worker)
    const gone = Promise.all(first.map((w) => once(w, 'exit')))
    const asked = pool.run({ wait: 10_000 })
    await pool.stop()
    await gone
    expect(await asked).toBeUndefined() // the caller does that work itself
    // Not given up: the next run starts new helpers.
    expect(await pool.run({ wait: 0 })).toBe(42)
    expect(pool.get()!.some((h) => first.includes(h.worker))).toBe(false)
    await pool.stop()
  })
})
