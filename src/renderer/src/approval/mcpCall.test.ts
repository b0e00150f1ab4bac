import { describe, expect, it } from 'vitest'
import { mcpArgsText, mcpDescriptionText } from './mcpCall'

describe('mcpArgsText', () => {
  it('indents the arguments as JSON', () => {
    expect(mcpArgsText({ message: 'hi', n: [1, 2] })).toEqual({
      text: '{\n  "message": "hi",\n  "n": [\n    1,\n    2\n  ]\n}',
      hidden: 0,
    })
    expect(mcpArgsText(undefined)).toEqual({ text: '{}', hidden: 0 })
  })

  it('cuts huge arguments and says how much was left out, never splitting a surrogate pair', () => {
    const shown = mcpArgsText({ blob: 'x'.repeat(100) }, 50)
    expect(shown.text).toHaveLength(50)
    expect(shown.hidden).toBe(JSON.stringify({ blob: 'x'.repeat(100) }, null, 2).length - 50)
    // '{\n  "e": "' is 10 characters: an emoji starting at index 10 straddles a cut at 11.
    const emoji = mcpArgsText({ e: '😀😀' }, 11)
    expect(emoji.text).toBe('{\n  "e": "')
    expect(emoji.hidden).toBeGreaterThan(0)
  })

  it('shows a value JSON cannot write instead of failing', () => {
    const loop: Record<string, unknown> = {}
    loop.self = loop
    expect(mcpArgsText(loop).text).toBe('[object Object]')
  })
})

describe('mcpDescriptionText', () => {
  it('collapses whitespace and caps the text', () => {
    expect(mcpDescriptionText('  Echoes\n\n back\tthe input ')).toEqual({
      text: 'Echoes back the input',
      hidden: 0,
    })
    expect(mcpDescriptionText('a'.repeat(30), 10)).toEqual({ text: 'a'.repeat(10), hidden: 20 })
  })

  it('is null when the server gave no description', () => {
    expect(mcpDescriptionText(undefined)).toBeNull()
    expect(mcpDescriptionText(' \n ')).toBeNull()
  })
})
