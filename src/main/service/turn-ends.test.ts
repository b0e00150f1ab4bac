import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { HostMessage, StepwiseEvent } from '../../shared/protocol'
import { reduceEvents } from '../../shared/reducer'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from '../../../test/fake-model-server'
import { answer, startService, type CoreService, until as waitUntil } from '../../../test/service-harness'
import { INTERRUPTED_MARK } from '../providers/transcript'
import { openStore } from '../store/store'
import type { Store } from '../store/types'

/*
 * A chat goes on after every way a turn can end: stopped mid-stream, failed after its
 * retries, or on a server that reuses tool-call ids. Real fake model server on 127.0.0.1
 * (Ollama's native API, which the app's default model speaks), a real store, the service
 * driven by its protocol commands as the app drives it.
 */

let repo: string
let dataDir: string
let store: Store
let server: FakeModelServer
let service: CoreService
let messages: HostMessage[]

async function setup(turns: FakeTurn[]): Promise<string> {
  server = await startFakeModelServer({ turns, models: ['coder:1b'] })
  service = startService({ store, dataDir, baseUrl: server.url })
  messages = []
  service.subscribe((m) => messages.push(m))
  return (await call<{ sessionId: string }>('session/create', { repo })).sessionId
}

const call = <T = Record<string, unknown>>(command: string, input: unknown): Promise<T> =>
  answer<T>(service, command, input)

/** This file's turns do more: each wait gets 15 s. */
const until = (what: string, probe: () => boolean, timeoutMs = 15_000): Promise<true> =>
  waitUntil(what, () => probe() || undefined, timeoutMs)

const events = (sessionId: string): StepwiseEvent[] => store.listEvents(sessionId)
const ended = (sessionId: string) => () => !service.sessions.isRunning(sessionId)
const finishes = (sessionId: string) =>
  events(sessionId).flatMap((e) => (e.type === 'session.finished' ? [e.reason] : []))
/** The messages of every /api/chat request, in order. */
const chats = () => server.requests.filter((r) => r.path === '/api/chat').map((r) => r.body.messages)

async function turn(sessionId: string, text: string): Promise<void> {
  await call('turn/start', { sessionId, text })
  await until('the turn to end', ended(sessionId))
}

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ends-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-ends-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'alpha\n')
  fs.writeFileSync(path.join(repo, 'b.txt'), 'beta\n')
  store = openStore(dataDir)
})

afterEach(async () => {
  await service.close()
  await server.close()
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('a chat after every kind of end', () => {
  it('stopped mid-stream: the partial answer stays, marked interrupted; rewind, a new message and Skip work', async () => {
    const sessionId = await setup([
      { hang: true, partial: true },
      { text: 'Going on.' },
      { text: 'Skipped it.' },
    ])
    await call('turn/start', { sessionId, text: 'Explain a.txt' })
    await until('text to stream', () => events(sessionId).some((e) => e.type === 'assistant.delta'))
    expect(await call('turn/interrupt', { sessionId })).toEqual({ interrupted: true })
    await until('the stop', ended(sessionId))
    expect(finishes(sessionId)).toEqual(['interrupted'])
    const partial = events(sessionId)
      .flatMap((e) => (e.type === 'assistant.delta' ? [e.text] : []))
      .join('')
    const stopped = reduceEvents(events(sessionId)).steps.find((s) => s.kind === 'model')
    expect(stopped).toMatchObject({ status: 'interrupted', text: partial })

    // /rewind to the first message is not refused (it used to be: "inside a model turn").
    const userSeq = events(sessionId).find((e) => e.type === 'user.message')!.seq
    const rewound = await call<{ status: string }>('session/rewind', { sessionId, toSeq: userSeq })
    expect(rewound.status).not.toBe('refused')

    await turn(sessionId, 'Go on')
    expect(finishes(sessionId)).toEqual(['interrupted', 'done'])
    const sent = chats()[1]
    expect(sent.slice(1)).toEqual([
      { role: 'user', content: 'Explain a.txt' },
      { role: 'assistant', content: `${partial}\n\n${INTERRUPTED_MARK}` },
      { role: 'user', content: 'Go on' },
    ])
    // Skip is a message like any other.
    await turn(sessionId, 'Skip the step that failed and carry on.')
    expect(finishes(sessionId)).toEqual(['interrupted', 'done', 'done'])
  })

  it('failed on 5xx after its retries: Retry asks again and works; the error is stored once', async () => {
    const overloaded: FakeTurn = {
      status: 503,
      body: JSON.stringify({ error: 'server overloaded' }),
      headers: { 'retry-after-ms': '0' },
    }
    const sessionId = await setup([overloaded, overloaded, overloaded, overloaded, { text: 'Recovered.' }])
    await turn(sessionId, 'Try this')
    expect(finishes(sessionId)).toEqual(['error'])
    const errors = events(sessionId).filter((e) => e.type === 'error')
    expect(errors).toHaveLength(1)
    // The app's advice names what the app offers, never a CLI flag.
    expect(errors[0]).toMatchObject({ code: 'server-error', hint: expect.stringContaining('Retry') })
    expect(JSON.stringify(errors[0])).not.toMatch(/--[a-z]|OPENAI_BASE_URL/)

    expect(await call('turn/retry', { sessionId })).toEqual({ accepted: true })
    await until('the retry to end', ended(sessionId))
    expect(finishes(sessionId)).toEqual(['error', 'done'])
    // The retry continued the same conversation: the task once, no second copy.
    expect(chats().at(-1).slice(1)).toEqual([{ role: 'user', content: 'Try this' }])
    expect(events(sessionId).filter((e) => e.type === 'user.message')).toHaveLength(1)
  })

  it('a server reusing tool-call ids: every result reaches the next request, in this turn and the next', async () => {
    const read = (file: string): FakeTurn => ({
      toolCalls: [{ name: 'read_file', arguments: { path: file }, id: 'call_0' }],
    })
    const sessionId = await setup([
      read('a.txt'),
      read('b.txt'),
      { text: 'Read both.' },
      read('a.txt'),
      { text: 'Again.' },
    ])
    await turn(sessionId, 'Read a.txt then b.txt')
    await turn(sessionId, 'Read a.txt again')
    expect(finishes(sessionId)).toEqual(['done', 'done'])
    const ids = events(sessionId).flatMap((e) => (e.type === 'tool.finished' ? [e.callId] : []))
    expect(ids).toEqual(['call_0', 'call_0_2', 'call_0_3'])
    const last = chats().at(-1) as Array<{ role: string; content: string; tool_call_id?: string }>
    const results = last.filter((m) => m.role === 'tool')
    expect(results.map((m) => m.tool_call_id)).toEqual(['call_0', 'call_0_2', 'call_0_3'])
    expect(results.map((m) => /alpha|beta/.exec(m.content)?.[0])).toEqual(['alpha', 'beta', 'alpha'])
  })
})
