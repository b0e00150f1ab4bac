import { describe, expect, it } from 'vitest'
import { classifyDiffLine, diffRuns } from './diffLines'

describe('classifyDiffLine', () => {
  it('tells added, removed, hunk, header and context lines apart', () => {
    expect(classifyDiffLine('+x')).toBe('add')
    expect(classifyDiffLine('-x')).toBe('del')
    expect(classifyDiffLine('@@ -1,2 +1,2 @@')).toBe('hunk')
    expect(classifyDiffLine('--- a/x.ts')).toBe('meta')
    expect(classifyDiffLine('+++ b/x.ts')).toBe('meta')
    expect(classifyDiffLine('\\ No newline at end of file')).toBe('meta')
    expect(classifyDiffLine(' same')).toBe('ctx')
  })
})

describe('diffRuns', () => {
  it('joins consecutive lines of a kind', () => {
    expect(diffRuns('@@ -1,3 +1,3 @@\n a\n-b\n-c\n+d\n e')).toEqual([
      { kind: 'hunk', text: '@@ -1,3 +1,3 @@' },
      { kind: 'ctx', text: ' a' },
      { kind: 'del', text: '-b\n-c' },
      { kind: 'add', text: '+d' },
      { kind: 'ctx', text: ' e' },
    ])
  })
})
