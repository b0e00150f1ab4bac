import { describe, expect, it } from 'vitest'
import { indexSummary } from './indexSummary'

const now = 1_700_000_000_000

describe('indexSummary', () => {
  it('says how many files, how fresh, and the main languages', () => {
    const status = {
      root: '/r',
      files: 1234,
      bytes: 1,
      builtAt: now - 5 * 60_000,
      languages: { typescript: 900, python: 3, css: 0, javascript: 40 },
    }
    expect(indexSummary(status, now)).toBe('1,234 files · built 5 min ago · typescript, javascript, python')
  })
  it('tells an index never built, and copes with anything else', () => {
    expect(indexSummary({ files: 0, languages: {} }, now)).toBe('Not built yet')
    expect(indexSummary(null, now)).toBe('Unknown')
    expect(indexSummary({ files: 'x' }, now)).toBe('Unknown')
  })
  it('passes the index’s own warning on', () => {
    expect(indexSummary({ files: 2, builtAt: now - 2 * 3_600_000, warning: 'Over 50,000 files' }, now)).toBe(
      '2 files · built 2 h ago · Over 50,000 files',
    )
  })
})
