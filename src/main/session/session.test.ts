import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../shared/protocol'
import { reduceEvents } from '../../shared/reducer'
import { startFakeModelServer, type FakeModelServer } from '../../../test/fake-model-server'
import { refusingApprover } from '../agent/approvals'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { Session, SessionBusyError } from './session'
import { closeSnapshotters } from './snapshotters'

/*
 * The session object: what outlives a turn stays in it, each turn is recorded between
 * turn.started and turn.finished, and a model switch applies from the next turn. Real
 * fake model servers on 127.0.0.1 (Ollama's native API), a real store and project.
 */

let repo: string
let dataDir: string
let store: Store
const servers: FakeModelServer[] = []

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-session-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-session-data-'))
  fs.writeFileSync(path.join(repo, 'a.ts'), 'export function alpha(): number {\n  return 1\n}\n')
  store = openStore(dataDir)
})

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
  closeSnapshotters(store)
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function server(turns: Parameters<typeof startFakeModelServer>[0]): Promise<FakeModelServer> {
  const s = await startFakeModelServer(turns)
  servers.push(s)
  return s
}

const ollama = (s: FakeModelServer, model = 'coder:1b') =>
  ({ provider: 'ollama', model, baseUrl: s.url }) as const

const turnMarks = (events: StepwiseEvent[]) =>
  events.flatMap((e) =>
    e.type === 'turn.started'
      ? [`started ${e.turn} ${e.kind}`]
      : e.type === 'turn.finished'
        ? [`finished ${e.turn} ${e.reason}`]
        : [],
  )
const systemOf = (s: FakeModelServer, i: number) =>
  (
    s.requests.filter((r) => r.path === '/api/chat')[i]?.body.messages as { role: string; content: string }[]
  )[0]

describe('Session', () => {
  it('runs turn after turn on one prepared context, each between turn.started and turn.finished', async () => {
    const model = await server({
      turns: [{ hang: true, partial: true }, { text: 'Again.' }, { text: 'Yes.' }],
    })
    const session = await Session.create(store, {
      repo,
      provider: ollama(model),
      policy: 'auto-edit',
      approver: refusingApprover,
      title: 'New chat',
    })
    const stop = new AbortController()
    const first = session.runTurn({ message: 'Explain a.ts', signal: stop.signal })
    while (!store.listEvents(session.id).some((e) => e.type === 'assistant.delta'))
      await new Promise((r) => setTimeout(r, 10))
    // One turn at a time: a second one is refused while the first runs.
    await expect(session.runTurn({ message: 'too soon' })).rejects.toBeInstanceOf(SessionBusyError)
    expect(session.running).toBe(true)
    stop.abort()
    expect((await first).reason).toBe('interrupted')
    expect((await session.runTurn()).reason).toBe('done')
    expect((await session.runTurn({ message: 'Sure?' })).reason).toBe('done')

    const events = store.listEvents(session.id)
    expect(turnMarks(events)).toEqual([
      'started 1 message',
      'finished 1 interrupted',
      'started 2 retry',
      'finished 2 done',
      'started 3 message',
      'finished 3 done',
    ])
    // Each turn.finished comes right after its session.finished.
    for (const [i, e] of events.entries())
      if (e.type === 'turn.finished') expect(events[i - 1]?.type).toBe('session.finished')
    // The system prompt (repo map included) is the same every turn: one prefix for the prompt cache.
    expect(systemOf(model, 0).role).toBe('system')
    expect(systemOf(model, 1)).toEqual(systemOf(model, 0))
    expect(systemOf(model, 2)).toEqual(systemOf(model, 0))
    // The reducer and replay read the turn events: the session ends finished, nothing streaming.
    const view = reduceEvents(events)
    expect(view.status).toBe('finished')
    expect(view.steps.some((s) => s.kind === 'model' && s.status === 'streaming')).toBe(false)
  })

  it('setModel applies from the next turn; a loaded session goes on from its stored events', async () => {
    const first = await server({ turns: [{ text: 'From the first.' }] })
    const second = await server({ turns: [{ text: 'From the second.' }, { text: 'Loaded.' }] })
    const setup = { repo, policy: 'auto-edit' as const, approver: refusingApprover }
    const session = await Session.create(store, { ...setup, provider: ollama(first), title: 't' })
    await session.runTurn({ message: 'one' })
    session.setModel(ollama(second, 'other:2b'))
    expect(session.model).toEqual({ provider: 'ollama', model: 'other:2b' })
    await session.runTurn({ message: 'two' })
    expect(first.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1)
    const asked = second.requests.filter((r) => r.path === '/api/chat')
    expect(asked[0].body.model).toBe('other:2b')

    // Another process (or a restart) loads it: its next turn is number 3 and sees both answers.
    const loaded = await Session.load(store, session.id, { ...setup, provider: ollama(second, 'other:2b') })
    await loaded.runTurn({ message: 'three' })
    const texts = (
      second.requests.filter((r) => r.path === '/api/chat')[1].body.messages as { content: string }[]
    ).map((m) => m.content)
    expect(texts).toEqual(
      expect.arrayContaining(['one', 'From the first.', 'two', 'From the second.', 'three']),
    )
    expect(turnMarks(store.listEvents(session.id)).at(-2)).toBe('started 3 message')
  })

  it('load refuses a session with no baseline, saying so', async () => {
    const row = store.createSession({ repo, title: 'x', provider: 'ollama', model: 'm' })
    await expect(
      Session.load(store, row.id, {
        repo,
        provider: { provider: 'ollama', model: 'm', baseUrl: 'http://127.0.0.1:9' },
        policy: 'ask',
        approver: refusingApprover,
      }),
    ).rejects.toThrow(/no session.started with a baseline/)
  })
})
