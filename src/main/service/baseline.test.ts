import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../../../test/fake-model-server'
import { answer, startService, type CoreService } from '../../../test/service-harness'
import { openStore } from '../store/store'
import type { Store } from '../store/types'

// `context/baseline` on a real project folder, a real store and the fake model server on 127.0.0.1.

let repo: string
let dataDir: string
let store: Store
let server: FakeModelServer
let service: CoreService

const baseline = (input: Record<string, unknown>): Promise<Record<string, unknown>> =>
  answer(service, 'context/baseline', { repo, ...input })

beforeEach(async () => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-baseline-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-baseline-data-'))
  fs.writeFileSync(path.join(repo, 'app.ts'), 'export function greet(name: string) {\n  return name\n}\n')
  store = openStore(dataDir)
  server = await startFakeModelServer({ models: ['coder:1b'], show: { contextLength: 16_384 } })
  service = startService({ store, dataDir, baseUrl: server.url })
})

afterEach(async () => {
  await service.close()
  await server.close()
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('context/baseline', () => {
  it("counts the prompt, tools and repo map, and takes Ollama's window from the model", async () => {
    const before = await baseline({})
    expect(before.windowTokens).toBe(16_384)
    expect(before.windowSource).toBe('server')
    expect(before.systemTokens).toBeGreaterThan(100)
    expect(before.toolsTokens).toBeGreaterThan(100)
    expect(before.rulesTokens).toBe(0)
    expect(before.fix).toBeUndefined()
    expect(before.totalTokens).toBe(
      Number(before.systemTokens) + Number(before.toolsTokens) + Number(before.repoMapTokens),
    )

    // The project's rules count as soon as they exist.
    fs.writeFileSync(path.join(repo, 'AGENTS.md'), 'Always run the tests. '.repeat(50))
    const after = await baseline({})
    expect(after.rulesTokens).toBeGreaterThan(100)
    expect(after.totalTokens).toBeGreaterThan(Number(before.totalTokens))
  })

  it('says a compatible server’s window is unknown and how to set it, until it is set', async () => {
    const unknown = await baseline({ provider: 'openai-chat', model: 'my-alias', baseUrl: server.v1Url })
    expect(unknown.windowTokens).toBeNull()
    expect(unknown.windowSource).toBe('unknown')
    expect(unknown.fix).toContain('--num-ctx')

    const listed = await baseline({ provider: 'openai-chat', model: 'gpt-4.1-mini', baseUrl: server.v1Url })
    expect(listed.windowSource).toBe('table')
    expect(listed.windowTokens).toBeGreaterThan(100_000)

    const set = await service.answer('settings/set', { modelOptions: { numCtx: 65_536 } })
    expect(set.ok).toBe(true)
    const configured = await baseline({ provider: 'openai-chat', model: 'my-alias', baseUrl: server.v1Url })
    expect(configured).toMatchObject({ windowTokens: 65_536, windowSource: 'setting' })
  })
})
