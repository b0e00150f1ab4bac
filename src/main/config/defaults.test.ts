import { describe, expect, it } from 'vitest'
import { chooseModel } from './defaults'

function settings(values: Record<string, string>) {
  return { getSetting: (key: string) => values[key] }
}

describe('chooseModel', () => {
  const none = settings({})

  it('takes the provider off `--model PROVIDER:NAME`, as /model does in the app', () => {
    expect(chooseModel({ model: 'openai-chat:my-model' }, {}, none)).toEqual({
      provider: 'openai-chat',
      model: 'my-model',
      baseUrl: undefined,
    })
    expect(chooseModel({ model: 'ollama:qwen2.5-coder:7b' }, {}, none)).toMatchObject({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
    })
    // An Ollama tag is no provider.
    expect(chooseModel({ provider: 'ollama', model: 'qwen2.5-coder:7b' }, {}, none)).toMatchObject({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
    })
  })

  it("a prefix naming another provider drops the other provider's server", () => {
    expect(
      chooseModel(
        { provider: 'ollama', model: 'openai-chat:m', baseUrl: 'http://127.0.0.1:11434' },
        {},
        none,
      ),
    ).toEqual({ provider: 'openai-chat', model: 'm', baseUrl: undefined })
  })

  it('uses the server the app remembered for the provider, after the flag and the environment', () => {
    const stored = settings({
      providers: JSON.stringify({ 'openai-chat': { baseUrl: 'http://127.0.0.1:1234/v1' } }),
    })
    expect(chooseModel({ provider: 'openai-chat', model: 'm' }, {}, stored).baseUrl).toBe(
      'http://127.0.0.1:1234/v1',
    )
    expect(
      chooseModel({ provider: 'openai-chat', model: 'm' }, { OPENAI_BASE_URL: 'http://env/v1' }, stored)
        .baseUrl,
    ).toBe('http://env/v1')
    expect(
      chooseModel({ provider: 'openai-chat', model: 'm', baseUrl: 'http://flag/v1' }, {}, stored).baseUrl,
    ).toBe('http://flag/v1')
    expect(chooseModel({ provider: 'ollama', model: 'm' }, {}, stored).baseUrl).toBeUndefined()
  })
})
