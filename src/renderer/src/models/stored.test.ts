import { describe, expect, it } from 'vitest'
import { isHttpUrl, parseChoice, sameChoice } from './stored'

describe('parseChoice', () => {
  it('reads back a stored choice', () => {
    expect(parseChoice('{"provider":"ollama","model":"qwen2.5-coder:7b"}')).toEqual({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
    })
    expect(
      parseChoice('{"provider":"openai-chat","model":"m","baseUrl":"http://localhost:1234/v1"}'),
    ).toEqual({ provider: 'openai-chat', model: 'm', baseUrl: 'http://localhost:1234/v1' })
  })
  it('refuses anything else', () => {
    expect(parseChoice(null)).toBeNull()
    expect(parseChoice('not json')).toBeNull()
    expect(parseChoice('"ollama"')).toBeNull()
    expect(parseChoice('{"provider":"anthropic","model":"x"}')).toBeNull()
    expect(parseChoice('{"provider":"openai","model":"  "}')).toBeNull()
    expect(parseChoice('{"provider":"openai","model":"x","baseUrl":"file:///etc"}')).toBeNull()
  })
})

describe('helpers', () => {
  it('accepts only http(s) URLs', () => {
    expect(isHttpUrl('https://api.example.com/v1')).toBe(true)
    expect(isHttpUrl('localhost:1234')).toBe(false)
    expect(isHttpUrl(42)).toBe(false)
  })
  it('compares choices with a missing base URL equal to an empty one', () => {
    expect(sameChoice({ provider: 'openai', model: 'a' }, { provider: 'openai', model: 'a' })).toBe(true)
    expect(
      sameChoice({ provider: 'openai', model: 'a' }, { provider: 'openai', model: 'a', baseUrl: 'http://x' }),
    ).toBe(false)
    expect(sameChoice(null, null)).toBe(true)
  })
})
