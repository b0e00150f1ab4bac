import { describe, expect, it } from 'vitest'
import { InputHistory, insertMention, matchFiles, mentionAt } from './mentions'

describe('mentions', () => {
  it('finds the @word at the caret only', () => {
    expect(mentionAt('fix @src/ap', 11)).toEqual({ start: 4, query: 'src/ap' })
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' })
    expect(mentionAt('mail me@example.com', 19)).toBeNull()
    expect(mentionAt('fix @src/app.ts now', 19)).toBeNull()
  })

  it('inserts the chosen path and moves the caret past it', () => {
    const text = 'look at @ap please'
    const m = mentionAt(text, 11)!
    expect(insertMention(text, m, 'src/app.ts')).toEqual({ text: 'look at @src/app.ts  please', caret: 20 })
  })

  it('ranks fuzzy matches and lists short paths first for an empty query', () => {
    const files = ['src/renderer/src/App.tsx', 'src/main/app.ts', 'README.md', 'docs/cli.md']
    expect(matchFiles(files, 'mainapp')[0]).toBe('src/main/app.ts')
    expect(matchFiles(files, '', 2)).toEqual(['README.md', 'docs/cli.md'])
    expect(matchFiles(files, 'zzzz')).toEqual([])
  })
})

describe('InputHistory', () => {
  it('walks back and forward and restores the draft', () => {
    const h = new InputHistory()
    h.push('first')
    h.push('second')
    expect(h.previous('draft')).toBe('second')
    expect(h.previous('second')).toBe('first')
    expect(h.previous('first')).toBeNull()
    expect(h.next()).toBe('second')
    expect(h.next()).toBe('draft')
    expect(h.next()).toBeNull()
  })
})
