import { describe, expect, it } from 'vitest'
import { COMMANDS, findSlash, PALETTE_COMMANDS, SLASH_COMMANDS } from './commands'

describe('the one command table', () => {
  it('offers every slash command of the message box', () => {
    const names = ['help', 'clear', 'undo', 'rewind', 'sessions', 'status', 'reindex', 'review', 'model']
    for (const name of [...names, 'policy', 'compact', 'export']) expect(findSlash(name)?.slash).toBe(name)
    expect(findSlash('nope')).toBeUndefined()
  })

  it('has unique ids and slash names', () => {
    expect(new Set(COMMANDS.map((c) => c.id)).size).toBe(COMMANDS.length)
    expect(new Set(SLASH_COMMANDS.map((c) => c.slash)).size).toBe(SLASH_COMMANDS.length)
  })

  it('keeps commands that need an argument out of the palette, and the rest in both', () => {
    expect(PALETTE_COMMANDS.map((c) => c.id)).not.toContain('rewind')
    expect(PALETTE_COMMANDS.map((c) => c.id)).not.toContain('policy')
    expect(PALETTE_COMMANDS.find((c) => c.id === 'undo')).toBe(findSlash('undo'))
    expect(PALETTE_COMMANDS.map((c) => c.id)).toContain('open-folder')
  })
})
