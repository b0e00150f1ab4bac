import { describe, expect, it } from 'vitest'
import { mcpHintPhrases } from './mcp-hints'

describe('mcpHintPhrases', () => {
  it('says each annotation the server set, warning on destructive and open world', () => {
    const phrases = mcpHintPhrases({ hints: { destructive: true, idempotent: false, openWorld: true } })
    expect(phrases.map((p) => [p.hint, p.value, p.warn])).toEqual([
      ['destructive', true, true],
      ['idempotent', false, false],
      ['openWorld', true, true],
    ])
    expect(phrases[0].text).toContain('allowing the whole server does not cover it')
  })

  it('says nothing the server left out, and no destructive hint on a read-only tool (the spec ignores it there)', () => {
    expect(mcpHintPhrases({})).toEqual([])
    expect(mcpHintPhrases({ readOnly: true, hints: { destructive: true, idempotent: true } })).toEqual([
      expect.objectContaining({ hint: 'readOnly', text: 'only reads, changes nothing' }),
      expect.objectContaining({ hint: 'idempotent', value: true }),
    ])
  })

  it('words the false values too: a server saying "not destructive", "closed world"', () => {
    const texts = mcpHintPhrases({ hints: { destructive: false, openWorld: false } }).map((p) => p.text)
    expect(texts).toEqual(['only adds, never deletes or overwrites', 'stays within its own data'])
  })
})
