import { describe, expect, it } from 'vitest'
import type { IgnoredChange } from '../snapshot/ignoredFolders'
import { foldChanges } from './ignored-tracking'

// A chat loaded after a restart records ignored folders afresh; what it finds is folded onto what
// the session's events already said changed since the session started.
describe('foldChanges', () => {
  const c = (path: string, status: IgnoredChange['status'], sha256?: string): IgnoredChange => ({
    path,
    status,
    ...(sha256 ? { size: 1, sha256 } : {}),
  })

  it('keeps what only one side names, and the later state of a file both name', () => {
    expect(foldChanges([c('a', 'modified', 'h1')], [c('b', 'added', 'h2')])).toEqual([
      c('a', 'modified', 'h1'),
      c('b', 'added', 'h2'),
    ])
    expect(foldChanges([c('a', 'modified', 'h1')], [c('a', 'modified', 'h3')])).toEqual([
      c('a', 'modified', 'h3'),
    ])
    expect(foldChanges([c('a', 'modified', 'h1')], [c('a', 'deleted')])).toEqual([c('a', 'deleted')])
  })

  it('a file added before stays added, or is no change once deleted; one deleted and back is modified', () => {
    expect(foldChanges([c('a', 'added', 'h1')], [c('a', 'modified', 'h2')])).toEqual([c('a', 'added', 'h2')])
    expect(foldChanges([c('a', 'added', 'h1')], [c('a', 'deleted')])).toEqual([])
    expect(foldChanges([c('a', 'deleted')], [c('a', 'added', 'h2')])).toEqual([c('a', 'modified', 'h2')])
  })
})
