import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { CommandOutput, ProviderId } from '../../shared/protocol'
import { startFakeModelServer, type FakeModelServer } from '../../../test/fake-model-server'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import type { KeyStore } from './context'
import { createCoreService } from './service'

// Every provider's models in one list, per-provider addresses and `/model` across providers,
// against two real HTTP servers on 127.0.0.1: one plays Ollama (/api/tags), the other an
// OpenAI-compatible server (/v1/models).

let dataDir: string
let repo: string
let store: Store
let ollama: FakeModelServer
let compatible: FakeModelServer
let services: ReturnType<typeof createCoreService>[] = []

function memoryKeys(): KeyStore {
  const keys = new Map<ProviderId, string>()
  return { get: (p) => keys.get(p), set: (p, k) => void keys.set(p, k), storage: 'in memory (test)' }
}

function start(defaults: { provider: ProviderId; model: string; baseUrl?: string }, keys = memoryKeys()) {
  const service = createCoreService({ store, dataDir, host: 'web', keys, defaults })
  services.push(service)
  return async <T>(command: string, input: unknown): Promise<T> => {
    const reply = await service.answer(command, input)
    if (!reply.ok) throw new Error(reply.error)
    return reply.output as T
  }
}

type Catalog = CommandOutput<'models/catalog'>
type Resolved = CommandOutput<'models/resolve'>

beforeEach(async () => {
  vi.stubEnv('OLLAMA_HOST', '')
  vi.stubEnv('OPENAI_BASE_URL', '')
  vi.stubEnv('OPENAI_API_KEY', '')
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-catalog-data-'))
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-catalog-repo-')))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'x\n')
  store = openStore(dataDir)
  ollama = await startFakeModelServer({ models: ['coder:1b', 'coder:7b'] })
  compatible = await startFakeModelServer({ models: ['gpt-local', 'coder:7b'] })
})

afterEach(async () => {
  for (const s of services) await s.close()
  services = []
  await ollama.close()
  await compatible.close()
  store.close()
  vi.unstubAllEnvs()
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.rmSync(repo, { recursive: true, force: true })
})

describe('models/catalog', () => {
  it('lists every provider, asks only the configured ones, and names what is missing', async () => {
    const call = start({ provider: 'ollama', model: 'coder:1b', baseUrl: ollama.url })
    const before = await call<Catalog>('models/catalog', {
      current: { provider: 'ollama', model: 'coder:1b' },
    })
    expect(
      before.providers.map((g) => [g.provider, g.configured, g.reachable, g.models.map((m) => m.name)]),
    ).toEqual([
      ['ollama', true, true, ['coder:1b', 'coder:7b']],
      ['openai', false, false, []],
      ['openai-chat', false, false, []],
    ])
    expect(before.setup).toEqual({ ready: true, problems: [] })
    expect(compatible.requests).toEqual([])

    await call('providers/set', { provider: 'openai-chat', baseUrl: `${compatible.v1Url}/` })
    const after = await call<Catalog>('models/catalog', {})
    const chat = after.providers.find((g) => g.provider === 'openai-chat')!
    expect(chat).toMatchObject({ configured: true, reachable: true, baseUrl: compatible.v1Url })
    expect(chat.models.map((m) => m.name)).toEqual(['coder:7b', 'gpt-local'])
  })

  it('is never ready while Ollama is down, and is once its address is fixed', async () => {
    const call = start({ provider: 'ollama', model: 'coder:1b', baseUrl: 'http://127.0.0.1:9' })
    const current = { provider: 'ollama', model: 'coder:1b' }
    const down = await call<Catalog>('models/catalog', { current })
    expect(down.setup.ready).toBe(false)
    expect(down.setup.problems).toEqual([
      {
        code: 'server-down',
        message: 'Ollama is not running at http://127.0.0.1:9.',
        fix: 'Start it with `ollama serve` (or open the Ollama app), or enter its address, then Retry.',
      },
    ])
    await call('providers/set', { provider: 'ollama', baseUrl: ollama.url })
    expect((await call<Catalog>('models/catalog', { current })).setup).toEqual({ ready: true, problems: [] })
    const missing = await call<Catalog>('models/catalog', {
      current: { provider: 'ollama', model: 'tiny:1b' },
    })
    expect(missing.setup.problems.map((p) => p.code)).toEqual(['model-missing'])
  })

  it('says a missing OpenAI key without asking OpenAI, and an unlisted cloud name is no blocker', async () => {
    const call = start({ provider: 'ollama', model: 'coder:1b', baseUrl: ollama.url })
    const noKey = await call<Catalog>('models/catalog', {
      current: { provider: 'openai', model: 'gpt-4.1-mini' },
    })
    expect(noKey.setup).toMatchObject({ ready: false, problems: [{ code: 'key-missing' }] })
    await call('providers/set', { provider: 'openai-chat', baseUrl: compatible.v1Url })
    const alias = await call<Catalog>('models/catalog', {
      current: { provider: 'openai-chat', model: 'my-alias' },
    })
    expect(alias.setup).toMatchObject({ ready: true, problems: [{ code: 'model-unlisted' }] })
  })

  it('refuses an address that is not one, saying what to enter', async () => {
    const call = start({ provider: 'ollama', model: 'coder:1b', baseUrl: ollama.url })
    await expect(
      call('providers/set', { provider: 'openai-chat', baseUrl: 'localhost:1234' }),
    ).rejects.toThrow(/not a URL: enter one starting with http:\/\//)
    // Ollama takes a bare host, as its own OLLAMA_HOST does.
    expect(await call('providers/set', { provider: 'ollama', baseUrl: 'localhost' })).toEqual({
      baseUrl: 'http://localhost:11434',
    })
  })
})

describe('per-provider addresses', () => {
  it('keeps the compatible server across a switch to Ollama and back, and across a restart', async () => {
    const call = start({ provider: 'ollama', model: 'coder:1b', baseUrl: ollama.url })
    await call('providers/set', { provider: 'openai-chat', baseUrl: compatible.v1Url })
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('session/configure', { sessionId, provider: 'openai-chat', model: 'gpt-local' })
    await call('session/configure', { sessionId, provider: 'ollama', model: 'coder:7b' })
    await call('session/configure', { sessionId, provider: 'openai-chat', model: 'gpt-local' })
    const switches = store.listEvents(sessionId).filter((e) => e.type === 'session.configured')
    expect(switches.map((e) => e.type === 'session.configured' && [e.provider, e.model, e.baseUrl])).toEqual([
      ['openai-chat', 'gpt-local', compatible.v1Url],
      ['ollama', 'coder:7b', ollama.url],
      ['openai-chat', 'gpt-local', compatible.v1Url],
    ])
    // A new service on the same store (the app reopened) still knows the compatible server.
    const again = start({ provider: 'ollama', model: 'coder:1b' })
    const catalog = await again<Catalog>('models/catalog', {})
    expect(catalog.providers.find((g) => g.provider === 'openai-chat')?.baseUrl).toBe(compatible.v1Url)
  })

  it('a start flag wins over the stored address until the user enters one in the app', async () => {
    start({ provider: 'ollama', model: 'coder:1b' })
    const first = start({ provider: 'ollama', model: 'coder:1b' })
    await first('providers/set', { provider: 'ollama', baseUrl: 'http://127.0.0.1:9' })
    const flagged = start({ provider: 'ollama', model: 'coder:1b', baseUrl: ollama.url })
    const groups = (await flagged<Catalog>('models/catalog', {})).providers
    expect(groups[0]).toMatchObject({ provider: 'ollama', baseUrl: ollama.url, reachable: true })
    await flagged('providers/set', { provider: 'ollama', baseUrl: 'http://127.0.0.1:9' })
    expect((await flagged<Catalog>('models/catalog', {})).providers[0].reachable).toBe(false)
    // Forgetting the entered address goes back to the start value.
    expect(await flagged('providers/set', { provider: 'ollama', baseUrl: null })).toEqual({
      baseUrl: ollama.url,
    })
  })
})

describe('models/resolve', () => {
  async function both() {
    const call = start({ provider: 'ollama', model: 'coder:1b', baseUrl: ollama.url })
    await call('providers/set', { provider: 'openai-chat', baseUrl: compatible.v1Url })
    return (name: string, current?: { provider: ProviderId; model: string }) =>
      call<Resolved>('models/resolve', { name, ...(current ? { current } : {}) })
  }

  it('finds a name on the one provider that has it, with that provider and its server', async () => {
    const resolve = await both()
    expect(await resolve('gpt-local', { provider: 'ollama', model: 'coder:1b' })).toMatchObject({
      status: 'found',
      choice: { provider: 'openai-chat', model: 'gpt-local', baseUrl: compatible.v1Url },
      message: 'Model: gpt-local (OpenAI-compatible), from the next turn on.',
    })
    // `name` alone is Ollama's `name:latest`; the listed name is the one switched to.
    expect((await resolve('ollama:coder:1b')).choice).toEqual({
      provider: 'ollama',
      model: 'coder:1b',
      baseUrl: ollama.url,
    })
  })

  it('prefers the current provider, and says when a name is on two others', async () => {
    const resolve = await both()
    const here = await resolve('coder:7b', { provider: 'ollama', model: 'coder:1b' })
    expect(here).toMatchObject({ status: 'found', choice: { provider: 'ollama', model: 'coder:7b' } })
    expect(here.message).toContain('Also on OpenAI-compatible: say /model openai-chat:coder:7b for that one.')
    const elsewhere = await resolve('coder:7b', { provider: 'openai', model: 'gpt-4.1-mini' })
    expect(elsewhere).toMatchObject({
      status: 'ambiguous',
      message:
        'coder:7b is on Ollama and OpenAI-compatible: say which, e.g. /model ollama:coder:7b or /model openai-chat:coder:7b.',
    })
    expect(elsewhere.choice).toBeUndefined()
  })

  it('never switches to a name nobody lists, nor asks Ollama to pull it', async () => {
    const resolve = await both()
    const typo = await resolve('coder', { provider: 'ollama', model: 'coder:1b' })
    expect(typo.status).toBe('unknown')
    expect(typo.message).toBe(
      'No configured provider lists a model named coder. Did you mean coder:1b (Ollama), coder:7b (Ollama), coder:7b (OpenAI-compatible)?',
    )
    const notPulled = await resolve('ollama:llama3.2')
    expect(notPulled.status).toBe('unknown')
    expect(notPulled.choice).toBeUndefined()
    expect(notPulled.message).toMatch(/^llama3.2 is not pulled in Ollama: pull it from the model picker/)
    expect(ollama.requests.some((r) => r.path === '/api/pull')).toBe(false)
    // Naming a cloud provider tries a name it does not list (many serve aliases).
    expect(await resolve('openai-chat:my-alias')).toMatchObject({
      status: 'found',
      choice: { model: 'my-alias' },
    })
    expect((await resolve('openai:gpt-4.1')).message).toBe(
      'OpenAI has no API key yet: enter one in the model picker, then try again.',
    )
  })

  it('says which provider did not answer when a name is not found', async () => {
    const call = start({ provider: 'ollama', model: 'coder:1b', baseUrl: 'http://127.0.0.1:9' })
    await call('providers/set', { provider: 'openai-chat', baseUrl: compatible.v1Url })
    const reply = await call<Resolved>('models/resolve', { name: 'coder:1b' })
    expect(reply).toMatchObject({ status: 'unknown' })
    expect(reply.message).toBe(
      'No configured provider lists a model named coder:1b (Ollama did not answer, so its models were not searched).',
    )
  })
})
