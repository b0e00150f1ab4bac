import { describe, expect, it } from 'vitest'
import { formatModelRef, parseModelRef, sameModelName } from './model-ref'

describe('parseModelRef', () => {
  it('reads a bare name, keeping the colons of an Ollama tag', () => {
    expect(parseModelRef('gpt-4.1-mini')).toEqual({ model: 'gpt-4.1-mini' })
    expect(parseModelRef(' qwen2.5-coder:7b ')).toEqual({ model: 'qwen2.5-coder:7b' })
  })

  it('splits a known provider id off the front', () => {
    expect(parseModelRef('ollama:qwen2.5-coder:7b')).toEqual({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
    })
    expect(parseModelRef('OpenAI:gpt-4.1')).toEqual({ provider: 'openai', model: 'gpt-4.1' })
    expect(parseModelRef('openai-chat:my-model')).toEqual({ provider: 'openai-chat', model: 'my-model' })
  })

  it('leaves an unknown prefix or an empty name as part of the name', () => {
    expect(parseModelRef('llama3:8b')).toEqual({ model: 'llama3:8b' })
    expect(parseModelRef('ollama:')).toEqual({ model: 'ollama:' })
    expect(parseModelRef(':x')).toEqual({ model: ':x' })
  })

  it('round-trips with formatModelRef', () => {
    expect(parseModelRef(formatModelRef('ollama', 'coder:1b'))).toEqual({
      provider: 'ollama',
      model: 'coder:1b',
    })
  })
})

describe('sameModelName', () => {
  it('treats a name without a tag as :latest', () => {
    expect(sameModelName('llama3', 'llama3:latest')).toBe(true)
    expect(sameModelName('llama3', 'llama3:8b')).toBe(false)
    expect(sameModelName('gpt-4.1', 'gpt-4.1')).toBe(true)
  })
})
