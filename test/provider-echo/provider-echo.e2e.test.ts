/**
 * A provider added at run time by a descriptor and one client file (echo-provider.ts), then used
 * by a session end to end through the core service as the app drives it: the protocol takes its
 * id once registered (and refuses it before, naming the known ones), the catalog lists its
 * server's models, and a turn with a tool call streams from its server on 127.0.0.1.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { registerProvider, unregisterProvider } from '../../src/main/providers'
import { createCoreService } from '../../src/main/service/service'
import { openStore } from '../../src/main/store/store'
import { commandSchemas, type ProviderGroup, type StepwiseEvent } from '../../src/shared/protocol'
import { providerIds } from '../../src/shared/providers'
import { startFakeModelServer } from '../fake-model-server'
import { Temps } from '../mcp-support'
import { answer, runTurn } from '../service-harness'
import { echoProvider } from './echo-provider'

const temps = new Temps()
afterAll(() => temps.cleanup())

describe('a provider added by a descriptor and one client file', () => {
  it('is refused before it is registered, with the known ids', () => {
    const parsed = commandSchemas['session/create'].input.safeParse({ repo: '/r', provider: 'echo' })
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0].message).toBe(
      'Unknown provider "echo": use one of ollama, openai, openai-chat.',
    )
  })

  it('runs a session with a tool call on its server, and is listed beside the others', async () => {
    registerProvider(echoProvider)
    const repo = temps.repo({ 'a.txt': 'one\n' })
    const dataDir = temps.dir('stepwise-echo-')
    const store = openStore(dataDir)
    const model = await startFakeModelServer({
      models: ['echo-1'],
      turns: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }, { text: 'It says one.' }],
    })
    const service = createCoreService({
      store,
      dataDir,
      host: 'web',
      defaults: { provider: 'echo', model: 'echo-1', baseUrl: model.v1Url, approvalPolicy: 'auto-edit' },
    })
    try {
      expect(providerIds()).toEqual(['ollama', 'openai', 'openai-chat', 'echo'])
      const { sessionId } = await answer<{ sessionId: string }>(service, 'session/create', {
        repo,
        provider: 'echo',
        model: 'echo-1',
      })
      await runTurn(service, sessionId, 'What does a.txt say?')

      const chats = model.requests.filter((r) => r.path === '/v1/chat/completions')
      expect(chats).toHaveLength(2)
      const sent = chats[1].body.messages as { role: string; content: string }[]
      expect(sent.find((m) => m.role === 'tool')?.content).toContain('one')

      const { events } = await answer<{ events: StepwiseEvent[] }>(service, 'session/events', { sessionId })
      const started = events.find((e) => e.type === 'session.started')
      expect(started).toMatchObject({ provider: 'echo', model: 'echo-1', baseUrl: model.v1Url })
      const finished = events.find((e) => e.type === 'tool.finished')
      expect(finished).toMatchObject({ name: 'read_file', ok: true })
      const messages = events.filter((e) => e.type === 'assistant.message')
      expect(messages.map((e) => e.provider)).toEqual(['echo', 'echo'])
      expect(messages.at(-1)).toMatchObject({ text: 'It says one.' })

      const { providers } = await answer<{ providers: ProviderGroup[] }>(service, 'models/catalog', {})
      const echo = providers.find((g) => g.provider === 'echo')
      expect(echo).toMatchObject({ baseUrl: model.v1Url, configured: true, reachable: true })
      expect(echo?.models.map((m) => m.name)).toEqual(['echo-1'])
    } finally {
      await service.close()
      await model.close()
      store.close()
      unregisterProvider('echo')
    }
  })
})
