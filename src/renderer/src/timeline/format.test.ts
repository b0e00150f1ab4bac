import { describe, expect, it } from 'vitest'
import {
  formatDuration,
  formatTimestamp,
  formatTokens,
  headLines,
  prettyJson,
  tailText,
  truncate,
} from './format'

describe('formatTokens', () => {
  it('shows small counts as they are', () => {
    expect(formatTokens(0)).toBe('0')
    expect(formatTokens(950)).toBe('950')
    expect(formatTokens(999)).toBe('999')
  })

  it('shows thousands with one decimal under 100k', () => {
    expect(formatTokens(1000)).toBe('1k')
    expect(formatTokens(12_345)).toBe('12.3k')
    expect(formatTokens(7_100)).toBe('7.1k')
    expect(formatTokens(99_940)).toBe('99.9k')
  })

  it('drops the decimal from 100k and promotes instead of printing 1000k', () => {
    expect(formatTokens(99_960)).toBe('100k')
    expect(formatTokens(123_456)).toBe('123k')
    expect(formatTokens(999_499)).toBe('999k')
    expect(formatTokens(999_600)).toBe('1M')
    expect(formatTokens(1_234_567)).toBe('1.2M')
    expect(formatTokens(2_500_000_000)).toBe('2.5B')
  })

  it('keeps the sign and survives nonsense', () => {
    expect(formatTokens(-12_300)).toBe('-12.3k')
    expect(formatTokens(Number.NaN)).toBe('0')
  })
})

describe('formatDuration', () => {
  it('uses milliseconds under a second', () => {
    expect(formatDuration(0)).toBe('0 ms')
    expect(formatDuration(850)).toBe('850 ms')
    expect(formatDuration(999.4)).toBe('999 ms')
  })

  it('uses seconds with one decimal under a minute', () => {
    expect(formatDuration(1000)).toBe('1.0 s')
    expect(formatDuration(1234)).toBe('1.2 s')
    expect(formatDuration(59_940)).toBe('59.9 s')
  })

  it('rounds 59.96 s up to a minute rather than printing 60.0 s', () => {
    expect(formatDuration(59_960)).toBe('1m 00s')
  })

  it('uses minutes and padded seconds, then hours and minutes', () => {
    expect(formatDuration(123_000)).toBe('2m 03s')
    expect(formatDuration(3_599_000)).toBe('59m 59s')
    expect(formatDuration(3_600_000)).toBe('1h 00m')
    expect(formatDuration(3_900_000)).toBe('1h 05m')
  })

  it('treats negative and non-finite values as zero', () => {
    expect(formatDuration(-5)).toBe('0 ms')
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('0 ms')
  })
})

describe('formatTimestamp', () => {
  it('formats local wall-clock time with zero padding', () => {
    expect(formatTimestamp(new Date(2025, 0, 2, 3, 4, 5).getTime())).toBe('2025-01-02 03:04:05')
    expect(formatTimestamp(Number.NaN)).toBe('')
  })
})

describe('prettyJson', () => {
  it('indents objects and parses JSON held in a string', () => {
    expect(prettyJson({ a: 1 })).toBe('{\n  "a": 1\n}')
    expect(prettyJson('{"path":"a.ts"}')).toBe('{\n  "path": "a.ts"\n}')
  })

  it('shows malformed JSON text as it is, and nothing for undefined', () => {
    expect(prettyJson('{"path": ')).toBe('{"path": ')
    expect(prettyJson(undefined)).toBe('')
  })

  it('does not throw on values JSON cannot hold', () => {
    const loop: Record<string, unknown> = {}
    loop.self = loop
    expect(prettyJson(loop)).toBe('[object Object]')
    expect(prettyJson(10n)).toBe('10')
  })
})

describe('truncate', () => {
  it('collapses whitespace and cuts with an ellipsis', () => {
    expect(truncate('  a\n\n b  ', 10)).toBe('a b')
    expect(truncate('abcdefghij', 5)).toBe('abcd…')
    expect(truncate('abcde', 5)).toBe('abcde')
  })
})

describe('headLines', () => {
  it('leaves short text whole', () => {
    expect(headLines('a\nb', 2)).toEqual({ head: 'a\nb', hidden: 0 })
    expect(headLines('a\nb\n', 2)).toEqual({ head: 'a\nb\n', hidden: 0 })
  })

  it('keeps the first lines and counts the rest', () => {
    expect(headLines('1\n2\n3\n4\n5', 2)).toEqual({ head: '1\n2', hidden: 3 })
  })
})

describe('tailText', () => {
  it('keeps short text', () => {
    expect(tailText('abc', 10)).toEqual({ text: 'abc', cut: 0 })
  })

  it('keeps the end, starting on a line when one is near', () => {
    const text = `${'x'.repeat(50)}\nlast line`
    expect(tailText(text, 12)).toEqual({ text: 'last line', cut: 51 })
    expect(tailText('abcdefghij', 4)).toEqual({ text: 'ghij', cut: 6 })
  })
})
