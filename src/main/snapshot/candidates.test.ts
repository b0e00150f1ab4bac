import { describe, expect, it } from 'vitest'
import type { SnapshotFile } from '../store/types'
import { candidatePaths, isSafeRelative, listedPaths, notCaptured, untrustedOf } from './candidates'

const file = (path: string): SnapshotFile => ({ path, hash: `h-${path}`, size: 1, mode: 0o644, mtimeMs: 0 })

describe('snapshot candidates', () => {
  it('keeps only paths that stay inside the root', () => {
    // Path traversal shapes as in CWE-22 (absolute, `..` segments, NUL, backslash).
    for (const bad of ['', '/etc/passwd', '../up', 'a/../../b', 'a\0b', 'a\\b'])
      expect(isSafeRelative(bad)).toBe(false)
    for (const ok of ['a', 'a/b.ts', 'a..b/c', '..hidden']) expect(isSafeRelative(ok)).toBe(true)
  })

  it('sorts and deduplicates a listing only when it is not sorted already', () => {
    const sorted = ['a', 'b/c', 'd']
    expect(listedPaths(sorted)).toEqual(sorted)
    expect(listedPaths(['d', 'a', '../x', 'a', 'b'])).toEqual(['a', 'b', 'd'])
  })

  it('looks again at the named paths and those listed or unlisted since', () => {
    const before = ['a', 'b', 'c']
    const now = ['a', 'c', 'd']
    expect(candidatePaths(new Set(['c']), before, now)).toEqual(['b', 'c', 'd'])
    // The same listing: only what was named, sorted.
    expect(candidatePaths(new Set(['c', 'a']), now, now)).toEqual(['a', 'c'])
    expect(candidatePaths(new Set(), now, now)).toEqual([])
  })

  it('finds what a full capture dropped from the previous manifest, in path order', () => {
    const previous = ['a', 'b', 'c', 'd'].map(file)
    expect(notCaptured(previous, ['a', 'c'].map(file))).toEqual(['b', 'd'])
    expect(notCaptured(previous, previous)).toEqual([])
  })

  it('indexes racily clean files by their place in the listing', () => {
    const paths = ['a', 'b', 'c', 'd']
    const racy = [
      { path: 'b', hash: 'hb' },
      { path: 'd', hash: 'hd' },
    ]
    expect([...untrustedOf(paths, racy)]).toEqual([
      [1, 'hb'],
      [3, 'hd'],
    ])
    expect(untrustedOf(paths, []).size).toBe(0)
  })
})
