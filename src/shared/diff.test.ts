import { applyPatch } from 'diff'
import { describe, expect, it } from 'vitest'
import { diffStat, unifiedDiff } from './diff'

describe('unifiedDiff', () => {
  it('writes git-style headers, /dev/null for create and delete, and nothing for no change', () => {
    expect(unifiedDiff('src/a.ts', 'a\nb\n', 'a\nc\n')).toBe(
      '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n',
    )
    expect(unifiedDiff('n.ts', null, 'x\ny\n')).toBe('--- /dev/null\n+++ b/n.ts\n@@ -0,0 +1,2 @@\n+x\n+y\n')
    expect(unifiedDiff('n.ts', 'x\n', null)).toBe('--- a/n.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n')
    expect(unifiedDiff('same.ts', 'x\n', 'x\n')).toBe('')
  })

  it('round-trips through applyPatch on random edits', () => {
    let seed = 42
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n
    for (let round = 0; round < 30; round++) {
      const lines = Array.from({ length: 50 + rand(200) }, (_, i) => `l${i} ${rand(5)}`)
      const edited = [...lines]
      for (let k = 0; k < rand(20); k++) {
        const at = rand(edited.length)
        const op = rand(3)
        if (op === 0) edited[at] = `edited ${k}`
        else if (op === 1) edited.splice(at, 1)
        else edited.splice(at, 0, `added ${k}`)
      }
      const before = lines.join('\n') + '\n'
      const after = edited.join('\n') + (rand(2) ? '\n' : '')
      expect(applyPatch(before, unifiedDiff('f', before, after))).toBe(after)
    }
  })

  it('falls back to a correct (coarse) diff for a total rewrite', () => {
    const before = Array.from({ length: 6000 }, (_, i) => `a${i}`).join('\n') + '\n'
    const after = Array.from({ length: 6000 }, (_, i) => `b${i}`).join('\n') + '\n'
    const patch = unifiedDiff('f', before, after)
    expect(applyPatch(before, patch)).toBe(after)
    expect(diffStat(before, after)).toEqual({ added: 6000, removed: 6000 })
  })

  it('deletes a file of a million lines without overflowing the stack (no spread of a hunk)', () => {
    const lines = Array.from({ length: 1_000_000 }, (_, i) => `line ${i}\n`)
    const diff = unifiedDiff('big.txt', lines.join(''), null)
    expect(diff.startsWith('--- a/big.txt\n+++ /dev/null\n@@ -1,1000000 +0,0 @@\n-line 0\n')).toBe(true)
    expect(diff.endsWith('-line 999999\n')).toBe(true)
  })
})

describe('diffStat', () => {
  it('counts added and removed lines', () => {
    expect(diffStat('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual({ added: 2, removed: 1 })
    expect(diffStat(null, 'x\ny')).toEqual({ added: 2, removed: 0 })
    expect(diffStat('x\n', null)).toEqual({ added: 0, removed: 1 })
    expect(diffStat('same', 'same')).toEqual({ added: 0, removed: 0 })
  })
})
