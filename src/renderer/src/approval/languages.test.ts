import { describe, expect, it } from 'vitest'
import { languageForPath } from './languages'

describe('languageForPath', () => {
  it('maps extensions, case-insensitively, on either path separator', () => {
    expect(languageForPath('src/app/main.tsx')).toBe('typescript')
    expect(languageForPath('C:\\work\\lib\\util.MJS')).toBe('javascript')
    expect(languageForPath('package.json')).toBe('json')
    expect(languageForPath('docs/README.md')).toBe('markdown')
    expect(languageForPath('a/b/c.py')).toBe('python')
    expect(languageForPath('config.yml')).toBe('yaml')
  })

  it('recognises names without a telling extension', () => {
    expect(languageForPath('docker/Dockerfile')).toBe('dockerfile')
    expect(languageForPath('Dockerfile.dev')).toBe('dockerfile')
    expect(languageForPath('.env')).toBe('ini')
  })

  it('falls back to plaintext', () => {
    expect(languageForPath('LICENSE')).toBe('plaintext')
    expect(languageForPath('notes.weird')).toBe('plaintext')
    expect(languageForPath('.hidden')).toBe('plaintext')
    expect(languageForPath('')).toBe('plaintext')
  })
})
