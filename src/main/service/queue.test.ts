import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { HostMessage, StepwiseEvent } from '../../shared/protocol'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from '../../../test/fake-model-server'
import { answer, startService, type CoreService, until } from '../../../test/service-harness'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { MessageQueue } from './queue'

/*
 * Messages sent while the agent works (`queue/*`): held, editable and cancellable until the
 * agent's next step boundary, then delivered as user messages the model reads in its next request.
 * A real service, a real SQLite file, a real temp project and a fake model server on 127.0.0.1.
 */

let repo: string
let dataDir: string
let store: Store
let server: FakeModelServer
let service: CoreService
let messages: HostMessage[]

async function setup(turns: FakeTurn[]): Promise<string> {
  server = await startFakeModelServer({ turns, models: ['coder:1b'] })
  service = startService({ store, dataDir, baseUrl: server.url, approvalPolicy: 'ask' })
  messages = []
  service.subscribe((m) => messages.push(m))
  return (await call<{ sessionId: string }>('session/create', { repo })).sessionId
}

const call = <T = Record<string, unknown>>(command: string, input: unknown): Promise<T> =>
  answer<T>(service, command, input)

const events = (sessionId: string): StepwiseEvent[] => store.listEvents(sessionId)
const turnsEnded = (sessionId: string) =>
  messages.filter((m) => m.type === 'host.turn-ended' && m.sessionId === sessionId).length
const approvalOf = (sessionId: string) =>
  events(sessionId).find(
    (e): e is Extract<StepwiseEvent, { type: 'approval.requested' }> => e.type === 'approval.requested',
  )
const lastQueue = (sessionId: string) =>
  messages.filter((m) => m.type === 'host.queue-changed' && m.sessionId === sessionId).at(-1)
/** The user texts of each request the model received, in order. */
const userTexts = (index: number): string[] =>
  (
    server.requests.filter((r) => r.path === '/api/chat')[index].body.messages as Array<{
      role: string
      content: string
    }>
  )
    .filter((m) => m.role === 'user')
    .map((m) => m.content)

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-queue-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-queue-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n')
  store = openStore(dataDir)
})

afterEach(async () => {
  await service.close()
  await server.close()
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('messages sent while the agent works', () => {
  it('wait for the next step, can be edited or taken back, and reach the model as user messages', async () => {
    const sessionId = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } }] },
      { text: 'Done, and noted.' },
    ])
    await call('turn/start', { sessionId, text: 'make b' })
    const asked = await until('the approval', () => approvalOf(sessionId))

    const first = await call<{ id: string; started: boolean }>('queue/add', { sessionId, text: 'use tabs' })
    expect(first.started).toBe(false)
    const second = await call<{ id: string }>('queue/add', { sessionId, text: 'and a typo' })
    const third = await call<{ id: string }>('queue/add', { sessionId, text: 'never mind this' })
    await call('queue/update', { sessionId, id: second.id, text: 'and add a README' })
    await call('queue/remove', { sessionId, id: third.id })
    expect(lastQueue(sessionId)).toMatchObject({
      items: [
        { id: first.id, text: 'use tabs' },
        { id: second.id, text: 'and add a README' },
      ],
    })
    // Nothing reached the model yet: the step is still waiting for its approval.
    expect(server.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1)

    await call('approval/resolve', { sessionId, callId: asked.callId, decision: 'accept' })
    await until('the turn to end', () => turnsEnded(sessionId) >= 1)
    expect(userTexts(1)).toEqual(['make b', 'use tabs', 'and add a README'])
    const delivered = events(sessionId).filter((e) => e.type === 'user.message')
    expect(delivered).toMatchObject([
      { text: 'make b' },
      { text: 'use tabs', queued: true },
      { text: 'and add a README', queued: true },
    ])
    // They were delivered after the step's tool call was answered, before the next model request.
    const toolDone = events(sessionId).find((e) => e.type === 'tool.finished')!
    expect(delivered[1].seq).toBeGreaterThan(toolDone.seq)
    expect(lastQueue(sessionId)).toMatchObject({ items: [] })
    const late = await service.answer('queue/update', { sessionId, id: first.id, text: 'too late' })
    expect(!late.ok && late.error).toMatch(/already delivered/)
  })

  it('stay queued after a stop, and Send now starts the next turn with them', async () => {
    const sessionId = await setup([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'b\n' } }] },
      { text: 'Tabs it is.' },
    ])
    await call('turn/start', { sessionId, text: 'make b' })
    await until('the approval', () => approvalOf(sessionId))
    await call('queue/add', { sessionId, text: 'use tabs' })
    await call('turn/interrupt', { sessionId })
    await until('the turn to end', () => turnsEnded(sessionId) >= 1)
    expect(lastQueue(sessionId)).toMatchObject({ items: [{ text: 'use tabs' }] })
    expect(events(sessionId).filter((e) => e.type === 'user.message')).toHaveLength(1)

    expect(await call('queue/flush', { sessionId })).toEqual({ accepted: true })
    await until('the second turn to end', () => turnsEnded(sessionId) >= 2)
    expect(userTexts(1).at(-1)).toBe('use tabs')
    expect(events(sessionId).at(-2)).toMatchObject({ type: 'session.finished', reason: 'done' })
    expect(events(sessionId).at(-1)).toMatchObject({ type: 'turn.finished', reason: 'done' })
  })

  it('start a turn when none runs', async () => {
    const sessionId = await setup([{ text: 'Hello.' }])
    expect(await call('queue/add', { sessionId, text: 'hi' })).toMatchObject({ started: true })
    await until('the turn to end', () => turnsEnded(sessionId) >= 1)
    expect(userTexts(0)).toEqual(['hi'])
  })
})

describe('MessageQueue', () => {
  it('hands out its messages once, oldest first, and reports each change', () => {
    const seen: string[][] = []
    const queue = new MessageQueue((items) => seen.push(items.map((m) => m.text)))
    const a = queue.add('a')
    queue.add('b')
    expect(queue.update(a, 'A')).toBe(true)
    expect(queue.take()).toEqual(['A', 'b'])
    expect(queue.take()).toEqual([])
    expect(queue.remove(a)).toBe(false)
    expect(seen).toEqual([['a'], ['a', 'b'], ['A', 'b'], []])
  })
})
