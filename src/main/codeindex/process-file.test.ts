import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_PARSE_BYTES } from './analyze'
import { processFile } from './process-file'
import { tempDir } from './test-support'

describe('processFile', () => {
  it('never reads a file over the parse limit: a 1.5 GB sparse .ts costs no memory', async () => {
    const root = tempDir('stepwise-big-')
    const abs = path.join(root, 'huge.ts')
    fs.writeFileSync(abs, 'export const x = 1\n')
    fs.truncateSync(abs, 1536 * 1024 * 1024) // sparse: no disk, but a whole read would hold 1.5 GB
    const before = process.memoryUsage().arrayBuffers
    const outcome = await processFile({ rel: 'huge.ts', abs })
    const grew = process.memoryUsage().arrayBuffers - before
    expect(grew).toBeLessThan(4 * MAX_PARSE_BYTES)
    expect(outcome.status).toBe('parsed')
    if (outcome.status !== 'parsed') return
    expect(outcome.size).toBe(1536 * 1024 * 1024)
    expect(JSON.parse(outcome.facts)).toMatchObject({
      kind: 'skipped',
      note: expect.stringMatching(/parse limit/),
    })
    // Unchanged size and mtime: not even opened again.
    const known = { hash: outcome.hash, size: outcome.size, mtimeMs: outcome.mtimeMs, version: 1 }
    expect(await processFile({ rel: 'huge.ts', abs, known })).toEqual({ rel: 'huge.ts', status: 'unchanged' })
  })

  it('reads a file at the limit whole, and one a byte over it not at all', async () => {
    const root = tempDir('stepwise-limit-')
    fs.writeFileSync(path.join(root, 'at.txt'), 'a'.repeat(MAX_PARSE_BYTES))
    fs.writeFileSync(path.join(root, 'over.txt'), 'a'.repeat(MAX_PARSE_BYTES + 1))
    const at = await processFile({ rel: 'at.txt', abs: path.join(root, 'at.txt') })
    const over = await processFile({ rel: 'over.txt', abs: path.join(root, 'over.txt') })
    expect(at.status === 'parsed' && JSON.parse(at.facts).kind).toBe('text')
    expect(over.status === 'parsed' && JSON.parse(over.facts).kind).toBe('skipped')
  })
})
