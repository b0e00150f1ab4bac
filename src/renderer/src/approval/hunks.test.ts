import { describe, expect, it } from 'vitest'
import {
  applyHunks,
  computeHunks,
  describeHunkRange,
  revealLineOf,
  splitLines,
  summarizeSelection,
  type Hunk,
} from './hunks'

const lines = (n: number, eol = '\n'): string =>
  Array.from({ length: n }, (_, i) => `line ${i + 1}${eol}`).join('')

/** Every subset of the hunks, as index sets. */
function subsets(count: number): Set<number>[] {
  const out: Set<number>[] = []
  for (let mask = 0; mask < 1 << count; mask++) {
    out.push(new Set(Array.from({ length: count }, (_, i) => i).filter((i) => mask & (1 << i))))
  }
  return out
}

const all = (hunks: Hunk[]): Set<number> => new Set(hunks.map((h) => h.index))

describe('splitLines', () => {
  it('keeps each terminator, splitting on \\n, \\r\\n and a lone \\r as Monaco does', () => {
    expect(splitLines('a\nb\r\nc\rd')).toEqual(['a\n', 'b\r\n', 'c\r', 'd'])
    expect(splitLines('a\n')).toEqual(['a\n'])
    expect(splitLines('\n\n')).toEqual(['\n', '\n'])
    expect(splitLines('')).toEqual([])
    expect(splitLines(null)).toEqual([])
  })
})

describe('computeHunks', () => {
  it('finds separate hunks with 1-based ranges on both sides', () => {
    const before = lines(20)
    const after = before
      .replace('line 3\n', 'LINE 3\n')
      .replace('line 10\nline 11\n', '')
      .replace('line 15\n', 'line 15\nnew a\nnew b\n')
    const hunks = computeHunks(before, after)
    expect(
      hunks.map(({ index, oldStart, oldLines, newStart, newLines }) => [
        index,
        oldStart,
        oldLines,
        newStart,
        newLines,
      ]),
    ).toEqual([
      [0, 3, 1, 3, 1],
      [1, 10, 2, 10, 0],
      [2, 16, 0, 14, 2],
    ])
    expect(hunks[0].lines).toEqual([
      { kind: '-', text: 'line 3', eol: '\n' },
      { kind: '+', text: 'LINE 3', eol: '\n' },
    ])
    expect(hunks[2].lines.map((l) => l.kind + l.text)).toEqual(['+new a', '+new b'])
  })

  it('is empty when nothing changed', () => {
    expect(computeHunks('same\n', 'same\n')).toEqual([])
    expect(computeHunks(null, '')).toEqual([])
  })

  it('makes one hunk of a created or a deleted file', () => {
    const created = computeHunks(null, 'a\nb\n')
    expect(created).toHaveLength(1)
    expect(created[0]).toMatchObject({ oldStart: 1, oldLines: 0, newStart: 1, newLines: 2 })
    const deleted = computeHunks('a\nb\nc', null)
    expect(deleted).toHaveLength(1)
    expect(deleted[0]).toMatchObject({ oldStart: 1, oldLines: 3, newStart: 1, newLines: 0 })
    expect(deleted[0].lines[2]).toEqual({ kind: '-', text: 'c', eol: '' })
  })

  it('treats a missing final newline as a change of the last line', () => {
    const hunks = computeHunks('a\nb', 'a\nb\n')
    expect(hunks).toHaveLength(1)
    expect(hunks[0]).toMatchObject({ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1 })
    expect(hunks[0].lines).toEqual([
      { kind: '-', text: 'b', eol: '' },
      { kind: '+', text: 'b', eol: '\n' },
    ])
  })

  it('counts CRLF lines as single lines', () => {
    const hunks = computeHunks('a\r\nb\r\nc\r\n', 'a\r\nB\r\nc\r\n')
    expect(hunks).toHaveLength(1)
    expect(hunks[0]).toMatchObject({ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1 })
    expect(hunks[0].lines[1]).toEqual({ kind: '+', text: 'B', eol: '\r\n' })
  })

  it('falls back to one replacement hunk when the edit is too large to diff exactly', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `a${i}\n`).join('')
    const after = Array.from({ length: 3000 }, (_, i) => `b${i}\n`).join('')
    const hunks = computeHunks(`head\n${before}tail\n`, `head\n${after}tail\n`)
    expect(hunks).toHaveLength(1)
    expect(hunks[0]).toMatchObject({ oldStart: 2, oldLines: 3000, newStart: 2, newLines: 3000 })
  })
})

describe('applyHunks', () => {
  const cases: Array<[string, string | null, string | null]> = [
    ['LF, edits in three places', lines(20), lines(20).replace('line 2\n', 'two\n').replace('line 18\n', '')],
    [
      'CRLF throughout',
      lines(12, '\r\n'),
      lines(12, '\r\n').replace('line 1\r\n', '').replace('line 9\r\n', 'nine\r\nnine b\r\n'),
    ],
    ['no final newline, last line edited', 'a\nb\nc\nd\ne\nf\ng\nh', 'A\nb\nc\nd\ne\nf\ng\nH'],
    ['final newline added, and a head edit', 'a\nb\nc\nd\ne\nf\ng', 'x\nb\nc\nd\ne\nf\ng\n'],
    ['final newline removed', 'a\nb\nc\nd\ne\nf\ng\n', 'a\nb\nC\nd\ne\nf\ng'],
    ['line endings converted on some lines', 'a\r\nb\r\nc\r\nd\r\ne\r\nf\r\n', 'a\nb\r\nc\r\nd\r\ne\nf\r\n'],
    ['lone CR line endings', 'a\rb\rc\rd\re\rf\r', 'a\rB\rc\rd\re\rF\r'],
    ['created file', null, 'new\nfile\n'],
    ['deleted file', 'old\nfile', null],
    ['empty to text', '', 'x'],
  ]

  for (const [name, before, after] of cases) {
    it(`rebuilds exactly for every selection: ${name}`, () => {
      const hunks = computeHunks(before, after)
      expect(hunks.length).toBeGreaterThan(0)
      expect(applyHunks(before, after, all(hunks))).toBe(after ?? '')
      expect(applyHunks(before, after, new Set())).toBe(before ?? '')
      for (const chosen of subsets(hunks.length)) {
        const text = applyHunks(before, after, chosen)
        // Accepting a subset, then diffing it against `after`, leaves exactly the rejected hunks.
        expect(computeHunks(text, after)).toHaveLength(hunks.length - chosen.size)
        expect(computeHunks(before, text)).toHaveLength(chosen.size)
      }
    })
  }

  it('applies only the accepted hunk, keeping the other region as before', () => {
    const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n'
    const after = 'ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n'
    expect(applyHunks(before, after, new Set([0]))).toBe('ONE\ntwo\nthree\nfour\nfive\nsix\nseven\n')
    expect(applyHunks(before, after, new Set([1]))).toBe('one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n')
  })

  it('keeps CRLF bytes of untouched lines when one hunk is rejected', () => {
    const before = 'a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\n'
    const after = 'A\r\nb\r\nc\r\nd\r\ne\r\nf\r\nG\r\n'
    expect(applyHunks(before, after, new Set([1]))).toBe('a\r\nb\r\nc\r\nd\r\ne\r\nf\r\nG\r\n')
  })

  it('ignores indexes that are not hunks', () => {
    expect(applyHunks('a\n', 'b\n', new Set([5]))).toBe('a\n')
  })
})

describe('summarizeSelection', () => {
  const hunks = computeHunks(lines(30), lines(30).replace('line 2\n', 'x\n').replace('line 20\n', 'y\n'))

  it('counts accepted and rejected hunks', () => {
    expect(summarizeSelection(hunks, new Set([0, 1]))).toEqual({
      total: 2,
      accepted: 2,
      rejected: 0,
      allAccepted: true,
      noneAccepted: false,
    })
    expect(summarizeSelection(hunks, new Set([1]))).toMatchObject({
      accepted: 1,
      rejected: 1,
      allAccepted: false,
    })
    expect(summarizeSelection(hunks, new Set())).toMatchObject({
      accepted: 0,
      rejected: 2,
      noneAccepted: true,
    })
    expect(summarizeSelection(hunks, new Set([0, 7]))).toMatchObject({ accepted: 1, rejected: 1 })
  })

  it('calls an empty change all accepted, not none', () => {
    expect(summarizeSelection([], new Set())).toMatchObject({
      total: 0,
      allAccepted: true,
      noneAccepted: false,
    })
  })
})

describe('labels and reveal lines', () => {
  it('describes the new-side range, or the removed original lines', () => {
    const [changed, removed, added] = computeHunks(
      lines(20),
      lines(20).replace('line 3\n', 'x\ny\n').replace('line 10\n', '').replace('line 15\n', 'line 15\nz\n'),
    )
    expect(describeHunkRange(changed)).toBe('lines 3–4')
    expect(describeHunkRange(removed)).toBe('removes original line 10')
    expect(describeHunkRange(added)).toBe('line 16')
    expect(revealLineOf(changed)).toBe(3)
    expect(revealLineOf(removed)).toBe(10)
    expect(revealLineOf(added)).toBe(16)
  })

  it('reveals line 1 for a removal at the top', () => {
    const [h] = computeHunks('a\nb\nc\n', 'b\nc\n')
    expect(revealLineOf(h)).toBe(1)
  })
})
