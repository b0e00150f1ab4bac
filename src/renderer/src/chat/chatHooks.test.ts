import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpPromptView, McpResourceView } from '../../../shared/protocol'
import { contributeFeatures } from '../panels/features'
import { slashCommands } from '../palette/commands'
import { InputHistory } from './mentions'
import { historyStep } from './useHistory'
import { mentionOffer, mentionPick } from './useMentions'
import { slashOffer, slashPick } from './useSlashCommands'

/* What the message box's three completions do, on the app's real commands (every feature's). */

let takeBack: () => void
let SLASH_COMMANDS: ReturnType<typeof slashCommands>
beforeAll(() => {
  takeBack = contributeFeatures()
  SLASH_COMMANDS = slashCommands()
})
afterAll(() => takeBack())

const prompt = (command: string, required: boolean): McpPromptView => ({
  server: 'docs',
  command,
  name: command,
  arguments: [{ name: 'topic', required }],
})

describe('slash commands', () => {
  const prompts = [prompt('mcp__docs__summary', true), prompt('mcp__docs__news', false)]

  it('offer the app’s commands, then the servers’ prompts, only while the first word is typed', () => {
    const offer = slashOffer('/re', 3, SLASH_COMMANDS, prompts)
    expect(slashOffer('/ode', 4, SLASH_COMMANDS, []).commands.map((c) => c.slash)).toEqual(['model'])
    expect(offer.commands.map((c) => c.slash)).toEqual(['rewind', 'reindex', 'review'])
    expect(slashOffer('/mcp', 4, SLASH_COMMANDS, prompts).prompts).toEqual(prompts)
    expect(slashOffer('/rewind 3', 9, SLASH_COMMANDS, prompts)).toEqual({
      query: null,
      commands: [],
      prompts: [],
    })
    expect(slashOffer('/re', -1, SLASH_COMMANDS, prompts).query).toBeNull() // Esc closed the list
  })

  it('run a command on Enter, but complete one that still needs its argument', () => {
    const help = slashOffer('/hel', 4, SLASH_COMMANDS, [])
    expect(slashPick(help, 0, '/hel', 'run')).toMatchObject({ kind: 'command', arg: '', typed: '/help' })
    expect(slashPick(help, 0, '/hel', 'complete')).toEqual({ kind: 'complete', text: '/help ' })
    const rewind = slashOffer('/rewi', 5, SLASH_COMMANDS, [])
    expect(slashPick(rewind, 0, '/rewi', 'run')).toEqual({ kind: 'complete', text: '/rewind ' })
    expect(slashPick(rewind, 0, '/rewi 4', 'run')).toMatchObject({ kind: 'command', arg: '4' })
  })

  it('send a server prompt as the message, unless a required argument is missing', () => {
    const offer = slashOffer('/mcp__docs', 10, [], prompts)
    expect(slashPick(offer, 0, '/mcp__docs', 'run')).toEqual({
      kind: 'complete',
      text: '/mcp__docs__summary ',
    })
    expect(slashPick(offer, 0, '/mcp__docs cats', 'run')).toEqual({
      kind: 'send',
      text: '/mcp__docs__summary cats',
    })
    expect(slashPick(offer, 1, '/mcp__docs', 'run')).toEqual({ kind: 'send', text: '/mcp__docs__news' })
  })
})

describe('mentions', () => {
  const files = ['src/app.ts', 'README.md']
  const resources: McpResourceView[] = [
    { server: 'fs', uri: 'file:///{path}', template: true },
    { server: 'fs', uri: 'file:///notes.md', template: false },
  ]

  it('offer files, then resources, while an @word is typed', () => {
    const offer = mentionOffer('see @app', 8, files, resources)
    expect(offer.mention).toEqual({ start: 4, query: 'app' })
    expect(offer.files).toEqual(['src/app.ts'])
    expect(mentionOffer('no mention', 10, files, resources)).toEqual({
      mention: null,
      files: [],
      resources: [],
    })
  })

  it('put the pick in place of the @word, selecting a template’s hole to type over', () => {
    const offer = mentionOffer('see @ now', 5, files, resources)
    expect(mentionPick(offer, 0, 'see @ now')).toEqual({ text: 'see @README.md  now', caret: 15, end: 15 })
    const template = mentionPick(offer, 2, 'see @ now')!
    expect(template.text).toBe('see @fs:file:///{path}  now')
    expect(template.text.slice(template.caret, template.end)).toBe('{path}')
    const plain = mentionPick(offer, 3, 'see @ now')!
    expect([plain.text, plain.caret === plain.end]).toEqual(['see @fs:file:///notes.md  now', true])
  })
})

describe('history', () => {
  const at = (value: string, caret = value.length) => ({ value, selectionStart: caret, selectionEnd: caret })

  it('walks back and forth from the first and last line, and gives back the draft at the end', () => {
    const history = new InputHistory(['one', 'two'])
    expect(historyStep(history, 'ArrowUp', at('dra'), 'dra')).toBe('two')
    expect(historyStep(history, 'ArrowUp', at('two'), 'two')).toBe('one')
    expect(historyStep(history, 'ArrowUp', at('one'), 'one')).toBeNull()
    expect(historyStep(history, 'ArrowDown', at('one'), 'one')).toBe('two')
    expect(historyStep(history, 'ArrowDown', at('two'), 'two')).toBe('dra')
  })

  it('leaves ↑ and ↓ to the textarea inside a message of several lines', () => {
    const history = new InputHistory(['one'])
    expect(historyStep(history, 'ArrowUp', at('a\nb'), 'a\nb')).toBeNull() // caret on the 2nd line
    expect(historyStep(history, 'ArrowDown', at('a\nb', 0), 'a\nb')).toBeNull() // caret on the 1st
    expect(historyStep(history, 'Enter', at('a'), 'a')).toBeNull()
  })
})
