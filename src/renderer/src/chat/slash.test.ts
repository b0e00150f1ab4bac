import { describe, expect, it } from 'vitest'
import { matchSlash, parseSlash, slashQuery } from './slash'

describe('parseSlash', () => {
  it('reads a command and its argument', () => {
    expect(parseSlash('/undo')).toEqual({ name: 'undo', arg: '' })
    expect(parseSlash('/rewind 12  ')).toEqual({ name: 'rewind', arg: '12' })
    expect(parseSlash('/Review src/app.ts')).toEqual({ name: 'review', arg: 'src/app.ts' })
    expect(parseSlash('/model qwen3:8b\n')).toEqual({ name: 'model', arg: 'qwen3:8b' })
  })

  it('leaves paths, bare slashes and messages starting with a space to the model', () => {
    expect(parseSlash('/usr/bin is slow')).toBeNull()
    expect(parseSlash('/')).toBeNull()
    expect(parseSlash(' /undo')).toBeNull()
    expect(parseSlash('please /undo')).toBeNull()
  })

  it('reads an unknown word as a command too (the box says it is unknown)', () => {
    expect(parseSlash('/frobnicate now')).toEqual({ name: 'frobnicate', arg: 'now' })
  })
})

describe('slashQuery', () => {
  it('completes while the caret is in the first word', () => {
    expect(slashQuery('/', 1)).toBe('')
    expect(slashQuery('/re', 3)).toBe('re')
    expect(slashQuery('/rewind 3', 2)).toBe('rewind')
    // MCP prompts are named mcp__SERVER__PROMPT.
    expect(slashQuery('/mcp__lib__rev', 14)).toBe('mcp__lib__rev')
  })

  it('stops once an argument is typed, for plain text, and when closed', () => {
    expect(slashQuery('/rewind 3', 9)).toBeNull()
    expect(slashQuery('hello /re', 9)).toBeNull()
    expect(slashQuery('/usr/bin', 4)).toBeNull()
    expect(slashQuery('/re', -1)).toBeNull()
  })
})

describe('matchSlash', () => {
  const commands = [{ slash: 'review' }, { slash: 'reindex' }, { slash: 'undo' }, { slash: 'clear' }, {}]
  it('lists prefix matches first, then those containing the query', () => {
    expect(matchSlash(commands, 're').map((c) => c.slash)).toEqual(['review', 'reindex'])
    expect(matchSlash(commands, '').map((c) => c.slash)).toEqual(['review', 'reindex', 'undo', 'clear'])
    expect(matchSlash(commands, 'do').map((c) => c.slash)).toEqual(['undo'])
    expect(matchSlash(commands, 'zz')).toEqual([])
  })
})
