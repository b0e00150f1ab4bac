import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ApprovalPolicy, EventOf, StepwiseEvent } from '../../shared/protocol'
import { reduceEvents } from '../../shared/reducer'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from '../../../test/fake-model-server'
import { answer, startService, type CoreService, until as waitUntil } from '../../../test/service-harness'
import { openStore } from '../store/store'
import type { Store } from '../store/types'

/*
 * A model step of several file changes, through the app's service: the changes are announced
 * together before the first is asked, then asked and answered one by one as before. A real git
 * repository in a temp folder, a real SQLite file, the fake model server on 127.0.0.1.
 */

let repo: string
let dataDir: string
let store: Store
let server: FakeModelServer
let service: CoreService

const until = <T>(what: string, probe: () => T | undefined | false): Promise<T> =>
  waitUntil(what, probe, 15_000)
const events = (sessionId: string): StepwiseEvent[] => store.listEvents(sessionId)
const ofType = <T extends StepwiseEvent['type']>(sessionId: string, type: T): EventOf<T>[] =>
  events(sessionId).filter((e): e is EventOf<T> => e.type === type)

async function start(turns: FakeTurn[], policy: ApprovalPolicy = 'ask'): Promise<string> {
  server = await startFakeModelServer({ turns, models: ['coder:1b'] })
  service = startService({ store, dataDir, baseUrl: server.url, approvalPolicy: policy })
  const { sessionId } = await answer<{ sessionId: string }>(service, 'session/create', { repo })
  await answer(service, 'turn/start', { sessionId, text: 'change the files' })
  return sessionId
}

const resolve = (sessionId: string, callId: string, reply: Record<string, unknown>) =>
  answer(service, 'approval/resolve', { sessionId, callId, ...reply })

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-proposals-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-proposals-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\n')
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' })
  git('init', '-q')
  git('add', '.')
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start')
  store = openStore(dataDir)
})

afterEach(async () => {
  await service?.close()
  await server?.close()
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const threeChanges: FakeTurn = {
  toolCalls: [
    { name: 'write_file', arguments: { path: 'b.txt', content: 'bee\n' } },
    { name: 'edit_file', arguments: { path: 'a.txt', old_string: 'two', new_string: 'TWO' } },
    { name: 'edit_file', arguments: { path: 'a.txt', old_string: 'one', new_string: 'ONE' } },
  ],
}

describe('the file changes of one step', () => {
  it('are announced before the first is asked, each still answered on its own', async () => {
    const sessionId = await start([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      threeChanges,
      { text: 'Done.' },
    ])
    const first = await until('the first request', () => ofType(sessionId, 'approval.requested')[0])
    const proposed = ofType(sessionId, 'change.proposed')
    expect(proposed.map((p) => [p.index, p.count, p.seq < first.seq])).toEqual([
      [0, 3, true],
      [1, 3, true],
      [2, 3, true],
    ])
    const changes = proposed.map((p) => p.change)
    expect(changes.map(({ diff: _d, callId: _c, ...c }) => c)).toEqual([
      { tool: 'write_file', path: 'b.txt', change: 'create' },
      { tool: 'edit_file', path: 'a.txt', change: 'modify' },
      // The second change of a.txt depends on how the first is answered: no diff yet.
      { tool: 'edit_file', path: 'a.txt', change: 'modify', follows: true },
    ])
    expect(changes[0].diff).toContain('+bee')
    expect(changes[1].diff).toContain('+TWO')
    expect(changes[2].diff).toBeUndefined()
    expect(first.callId).toBe(changes[0].callId)

    // The timeline shows all three before the first is answered; none has run.
    const waiting = reduceEvents(events(sessionId)).steps.filter((s) => s.kind === 'tool' && s.mutating)
    expect(waiting.map((s) => s.kind === 'tool' && [s.status, s.proposed === true])).toEqual([
      ['waiting', false],
      ['waiting', true],
      ['waiting', true],
    ])

    await resolve(sessionId, first.callId, { decision: 'accept' })
    const second = await until('the second request', () => ofType(sessionId, 'approval.requested')[1])
    await resolve(sessionId, second.callId, { decision: 'reject', reason: 'keep two' })
    const third = await until('the third request', () => ofType(sessionId, 'approval.requested')[2])
    await resolve(sessionId, third.callId, { decision: 'accept' })
    await until('the turn', () => ofType(sessionId, 'session.finished')[0])

    expect(fs.readFileSync(path.join(repo, 'b.txt'), 'utf8')).toBe('bee\n')
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('ONE\ntwo\n')
    const results = ofType(sessionId, 'tool.finished').slice(1)
    expect(results.map((r) => r.ok)).toEqual([true, false, true])
    expect(String(results[1].result.error)).toContain('keep two')
    // Announced once: the calls' own requests are not announced again.
    expect(ofType(sessionId, 'change.proposed')).toHaveLength(3)
    // Each row stays where its proposal put it, under the proposal's own seq.
    const steps = reduceEvents(events(sessionId)).steps.filter((s) => s.kind === 'tool' && s.mutating)
    expect(steps.map((s) => s.kind === 'tool' && s.status)).toEqual(['ok', 'rejected', 'ok'])
    expect(steps.map((s) => s.seq)).toEqual(proposed.map((p) => p.seq))
  })

  it('are not announced when they will not ask, nor for a single change', async () => {
    const autoEdit = await start([threeChanges, { text: 'Done.' }], 'auto-edit')
    await until('the turn', () => ofType(autoEdit, 'session.finished')[0])
    expect(ofType(autoEdit, 'change.proposed')).toEqual([])
    await service.close()
    await server.close()

    const single = await start([
      { toolCalls: [{ name: 'write_file', arguments: { path: 'c.txt', content: 'c\n' } }] },
      { text: 'Done.' },
    ])
    const asked = await until('the request', () => ofType(single, 'approval.requested')[0])
    expect(ofType(single, 'change.proposed')).toEqual([])
    await resolve(single, asked.callId, { decision: 'accept' })
    await until('the turn', () => ofType(single, 'session.finished')[0])
  })

  it('that never ran read as not run once the turn is stopped', async () => {
    const sessionId = await start([threeChanges, { text: 'Done.' }])
    await until('the first request', () => ofType(sessionId, 'approval.requested')[0])
    await answer(service, 'turn/interrupt', { sessionId })
    await until('the turn', () => ofType(sessionId, 'session.finished')[0])
    const steps = reduceEvents(events(sessionId)).steps.filter((s) => s.kind === 'tool')
    expect(steps.map((s) => s.kind === 'tool' && s.status)).toEqual(['rejected', 'error', 'error'])
    expect(steps.some((s) => s.kind === 'tool' && s.proposed)).toBe(false)
  })
})
