import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { contributeFeatures } from '../panels/features'
import { contributedCommands, type Command } from '../panels/registry'
import { findSlash, paletteCommands, slashCommands } from './commands'

let takeBack: () => void
beforeAll(() => {
  takeBack = contributeFeatures()
})
afterAll(() => takeBack())

describe('the one command table', () => {
  it('offers every slash command of the message box', () => {
    const names = ['help', 'clear', 'undo', 'rewind', 'sessions', 'status', 'reindex', 'review', 'model']
    for (const name of [...names, 'policy', 'compact', 'export']) expect(findSlash(name)?.slash).toBe(name)
    expect(findSlash('nope')).toBeUndefined()
  })

  it('has unique ids and slash names', () => {
    expect(new Set(contributedCommands().map((c: Command) => c.id)).size).toBe(contributedCommands().length)
    expect(new Set(slashCommands().map((c) => c.slash)).size).toBe(slashCommands().length)
  })

  it('keeps commands that need an argument out of the palette, and the rest in both', () => {
    expect(paletteCommands().map((c) => c.id)).not.toContain('rewind')
    expect(paletteCommands().map((c) => c.id)).not.toContain('policy')
    expect(paletteCommands().find((c) => c.id === 'undo')).toBe(findSlash('undo'))
    expect(paletteCommands().map((c) => c.id)).toContain('open-folder')
  })
})
