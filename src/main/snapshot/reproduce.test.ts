import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../store/testing/helpers'
import { sha256 } from './blobs'
import { verify, withCaptured } from './reproduce'
import { RACY_MARGIN_MS } from './statCache'
import { STAT_FIELDS, statFiles } from './statFiles'

const roots: string[] = []
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true })
})

async function tree(files: Record<string, string>) {
  const root = fs.realpathSync(tempDir('stepwise-reproduce-'))
  roots.push(root)
  for (const [rel, content] of Object.entries(files)) fs.writeFileSync(path.join(root, rel), content)
  const paths = Object.keys(files).sort()
  return { root, paths, stats: await statFiles(root, paths) }
}

describe('stats that vouch for a snapshot', () => {
  it('trusts an untrusted file once its content matched and its mtime is old enough', async () => {
    const { root, paths, stats } = await tree({ 'a.ts': 'a', 'b.ts': 'b' })
    const last = { paths, stats, manifestHash: 'm', untrusted: new Map([[1, sha256(Buffer.from('b'))]]) }
    const mtime = fs.statSync(path.join(root, 'b.ts')).mtimeMs
    // Checked right after the write: still racy, still untrusted.
    expect(verify(last, { paths, stats }, root, mtime + 1)).toEqual({
      changed: [],
      untrusted: last.untrusted,
    })
    // Checked later: the content vouched for it and its mtime is now old.
    expect(verify(last, { paths, stats }, root, mtime + RACY_MARGIN_MS + 1)).toEqual({
      changed: [],
      untrusted: new Map(),
    })
    // A content that does not match is a change, whatever the stats say.
    const wrong = { ...last, untrusted: new Map([[1, sha256(Buffer.from('x'))]]) }
    expect(verify(wrong, { paths, stats }, root, mtime + RACY_MARGIN_MS + 1).changed).toEqual(['b.ts'])
  })

  it('finds a changed stat, and a file no longer stat-able even when its numbers read the same', async () => {
    const { root, paths, stats } = await tree({ 'a.ts': 'a', 'b.ts': 'b', 'c.ts': 'c' })
    const last = { paths, stats: stats.slice(), manifestHash: 'm', untrusted: new Map<number, string>() }
    const later = Date.now() + RACY_MARGIN_MS
    expect(verify(last, { paths, stats }, root, later)).toEqual({ changed: [], untrusted: new Map() })
    // c.ts one byte longer: its size alone tells.
    const grown = stats.slice()
    grown[2 * STAT_FIELDS + 1] += 1
    expect(verify(last, { paths, stats: grown }, root, later).changed).toEqual(['c.ts'])
    // b.ts could not be stat'ed now (status 0, no numbers), and the saved state says the same:
    // equal numbers, but no stat vouches for it.
    const lost = stats.slice()
    lost.fill(0, STAT_FIELDS, 2 * STAT_FIELDS)
    expect(verify({ ...last, stats: lost.slice() }, { paths, stats: lost }, root, later).changed).toEqual([
      'b.ts',
    ])
  })

  it('reads every untrusted file of an unchanged tree, and names those that differ in path order', async () => {
    const { root, paths, stats } = await tree({ 'a.ts': 'a', 'b.ts': 'b', 'c.ts': 'c' })
    const wrong = sha256(Buffer.from('x'))
    const untrusted = new Map([
      [2, wrong],
      [0, wrong],
      [1, sha256(Buffer.from('b'))],
    ])
    const last = { paths, stats, manifestHash: 'm', untrusted }
    // Checked once b.ts's mtime is old enough (by its own clock) for its stat to vouch for it.
    const mtime = fs.statSync(path.join(root, 'b.ts')).mtimeMs
    expect(verify(last, { paths, stats }, root, mtime + RACY_MARGIN_MS + 1)).toEqual({
      changed: ['a.ts', 'c.ts'],
      untrusted: new Map(),
    })
  })

  it('merges the stats of captured files into the old ones, and refuses a path neither knows', async () => {
    const { root, paths, stats } = await tree({ 'a.ts': 'a', 'c.ts': 'c' })
    const base = { paths, stats, untrusted: new Map<number, string>() }
    fs.writeFileSync(path.join(root, 'b.ts'), 'bb')
    const st = fs.statSync(path.join(root, 'b.ts'))
    const now = ['a.ts', 'b.ts', 'c.ts']
    const merged = withCaptured(base, now, new Map([['b.ts', { st, hash: 'hb' }]]), 'm2')!
    expect(merged.untrusted).toEqual(new Map([[1, 'hb']]))
    expect(Array.from(merged.stats)).toEqual(Array.from(await statFiles(root, now)))
    expect(withCaptured(base, now, new Map(), 'm2')).toBeUndefined()
  })
})
