import { describe, expect, it } from 'vitest'
import { createProvider, ollamaBaseUrl } from './index'
import { ProviderError } from './types'

describe('createProvider', () => {
  it('defaults base URLs per provider', () => {
    const openai = createProvider({ provider: 'openai', model: 'gpt-4.1', apiKey: 'sk' })
    expect([openai.id, openai.model, openai.baseUrl]).toEqual([
      'openai',
      'gpt-4.1',
      'https://api.openai.com/v1',
    ])
    const chat = createProvider({ provider: 'openai-chat', model: 'm', baseUrl: 'http://127.0.0.1:1234/v1/' })
    expect([chat.id, chat.baseUrl]).toEqual(['openai-chat', 'http://127.0.0.1:1234/v1'])
    const ollama = createProvider({ provider: 'ollama', model: 'qwen3' })
    expect([ollama.id, ollama.baseUrl]).toEqual(['ollama', 'http://127.0.0.1:11434'])
  })

  it('a missing API key for the default OpenAI URL is an auth error that names OPENAI_API_KEY', () => {
    for (const provider of ['openai', 'openai-chat'] as const) {
      let error: unknown
      try {
        createProvider({ provider, model: 'gpt-4.1' })
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ProviderError)
      expect(error).toMatchObject({ kind: 'auth', message: expect.stringContaining('OPENAI_API_KEY') })
    }
    // Local servers need no key.
    expect(
      createProvider({ provider: 'openai', model: 'm', baseUrl: 'http://localhost:8080/v1' }).baseUrl,
    ).toBe('http://localhost:8080/v1')
  })

  it('gives an Ollama host without a port 11434', () => {
    expect(ollamaBaseUrl(undefined)).toBe('http://127.0.0.1:11434')
    expect(ollamaBaseUrl('localhost')).toBe('http://localhost:11434')
    expect(ollamaBaseUrl('http://gpu-box')).toBe('http://gpu-box:11434')
    expect(ollamaBaseUrl('http://gpu-box:80/')).toBe('http://gpu-box') // explicit :80 kept (the default for http)
    expect(ollamaBaseUrl('0.0.0.0:9999')).toBe('http://0.0.0.0:9999')
    expect(ollamaBaseUrl('https://ollama.example.com')).toBe('https://ollama.example.com')
  })
})
