import { describe, expect, it } from 'vitest'
import { fileSubject, MAX_SUBJECT_TEXT_BYTES, summariseDiff } from './approval-diff'

describe('summariseDiff', () => {
  it('keeps a diff that fits as it is', () => {
    expect(summariseDiff('a\nb\n', 2)).toEqual({ text: 'a\nb\n', truncated: false })
    expect(summariseDiff('a\nb', 2)).toEqual({ text: 'a\nb', truncated: false })
  })

  it('keeps the first lines and says how many more there are', () => {
    expect(summariseDiff('a\nb\nc\nd\n', 2)).toEqual({
      text: 'a\nb\n[TRUNCATED: showing first 2 lines, 2 more available]\n',
      truncated: true,
    })
    expect(summariseDiff('a\nb\nc', 2).text).toContain('1 more available')
  })
})

describe('fileSubject', () => {
  it('carries a small change in full', () => {
    const s = fileSubject({ path: 'a.txt', kind: 'modify', before: 'x\n', after: 'y\n' })
    expect(s).toMatchObject({ before: 'x\n', after: 'y\n' })
    expect(s.summarised).toBeUndefined()
    expect(s.diff).toContain('-x\n+y\n')
  })

  it('summarises a deletion of a million lines: bounded diff, no full texts', () => {
    const before = Array.from({ length: 1_000_000 }, (_, i) => `line ${i}`).join('\n') + '\n'
    const s = fileSubject({ path: 'big.txt', kind: 'delete', before, after: null })
    expect(s.summarised).toBe(true)
    expect(s.before).toBeNull()
    expect(s.after).toBeNull()
    expect(s.diff.split('\n')).toHaveLength(20_002)
    expect(s.diff).toMatch(/\[TRUNCATED: showing first 20000 lines, \d+ more available\]\n$/)
  })

  it('summarises a side past the byte bound even when the diff is short', () => {
    const line = 'é'.repeat(MAX_SUBJECT_TEXT_BYTES / 2) // 2 bytes each: one byte over the bound with the newline
    const s = fileSubject({ path: 'wide.txt', kind: 'create', before: null, after: `${line}\n` })
    expect(s.summarised).toBe(true)
    expect(s.after).toBeNull()
    expect(s.diff).toContain('+é')
  })
})
