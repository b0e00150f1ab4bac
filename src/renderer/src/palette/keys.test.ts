import { describe, expect, it } from 'vitest'
import { isMacPlatform, matchShortcut, shortcutLabel, type KeyLike } from './keys'

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
})

describe('matchShortcut', () => {
  it('opens the palette on Ctrl+K and Cmd+K on every platform', () => {
    expect(matchShortcut(key('k', { ctrlKey: true }), false)).toBe('palette')
    expect(matchShortcut(key('K', { metaKey: true }), true)).toBe('palette')
    expect(matchShortcut(key('k', { ctrlKey: true }), true)).toBe('palette')
  })
  it('undoes with the platform’s own modifier only', () => {
    expect(matchShortcut(key('z', { ctrlKey: true }), false)).toBe('undo')
    expect(matchShortcut(key('z', { metaKey: true }), true)).toBe('undo')
    expect(matchShortcut(key('z', { ctrlKey: true }), true)).toBeNull()
    expect(matchShortcut(key('z', { metaKey: true }), false)).toBeNull()
  })
  it('leaves redo and other chords alone', () => {
    expect(matchShortcut(key('z', { ctrlKey: true, shiftKey: true }), false)).toBeNull()
    expect(matchShortcut(key('k', { ctrlKey: true, altKey: true }), false)).toBeNull()
    expect(matchShortcut(key('k'), false)).toBeNull()
    expect(matchShortcut(key('z'), false)).toBeNull()
  })
})

describe('labels', () => {
  it('reads as the platform writes it', () => {
    expect(shortcutLabel('k', true)).toBe('⌘K')
    expect(shortcutLabel('z', false)).toBe('Ctrl+Z')
    expect(isMacPlatform('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0)')).toBe(true)
    expect(isMacPlatform('Mozilla/5.0 (X11; Linux x86_64)')).toBe(false)
  })
})
