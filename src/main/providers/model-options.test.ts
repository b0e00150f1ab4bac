import { afterEach, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../../../test/fake-model-server'
import { runTurn, userRequest } from '../../../test/provider-harness'
import { resolveContextWindow } from '../context/windows'
import { createProvider } from './index'

// The window and temperature the user chose reach every provider's requests (and the meter).

let server: FakeModelServer | undefined
afterEach(() => server?.close())

const posted = (path: string) => server!.requests.filter((r) => r.path === path).map((r) => r.body)

describe('model options', () => {
  it("Ollama: num_ctx is the model's length up to the cap, or the setting; temperature is sent when set", async () => {
    server = await startFakeModelServer({
      turns: [{ text: 'a' }, { text: 'b' }, { text: 'c' }],
      show: { contextLength: 131072 },
    })
    const auto = createProvider({ provider: 'ollama', model: 'qwen2.5-coder:7b', baseUrl: server.url })
    const raised = createProvider({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
      baseUrl: server.url,
      maxNumCtx: 65536,
      temperature: 0.2,
    })
    const fixed = createProvider({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
      baseUrl: server.url,
      numCtx: 8192,
    })
    await runTurn(auto, userRequest('hi'))
    await runTurn(raised, userRequest('hi'))
    await runTurn(fixed, userRequest('hi'))
    expect(posted('/api/chat').map((b) => b.options)).toEqual([
      { num_ctx: 32768, num_predict: 32768 },
      { num_ctx: 65536, num_predict: 32768, temperature: 0.2 },
      { num_ctx: 8192, num_predict: 32768 },
    ])
    expect(await resolveContextWindow(raised)).toBe(65536)
    expect(await resolveContextWindow(fixed)).toBe(8192)
  })

  it('Chat and Responses: temperature in the body; the window the user gave is the one kept', async () => {
    server = await startFakeModelServer({ turns: [{ text: 'a' }, { text: 'b' }] })
    const chat = createProvider({
      provider: 'openai-chat',
      model: 'local-model',
      baseUrl: server.v1Url,
      numCtx: 8192,
      temperature: 0,
    })
    const responses = createProvider({
      provider: 'openai',
      model: 'gpt-4.1-mini',
      baseUrl: server.v1Url,
      apiKey: 'k',
      temperature: 0.7,
    })
    await runTurn(chat, userRequest('hi'))
    await runTurn(responses, userRequest('hi'))
    expect(posted('/v1/chat/completions')[0].temperature).toBe(0)
    expect(posted('/v1/responses')[0].temperature).toBe(0.7)
    expect(await resolveContextWindow(chat)).toBe(8192)
    // Without a window from the user, the model table decides.
    expect(await resolveContextWindow(responses)).toBe(1047576)
    const plain = createProvider({ provider: 'openai-chat', model: 'local-model', baseUrl: server.v1Url })
    expect(await resolveContextWindow(plain)).toBe(32768)
  })
})
