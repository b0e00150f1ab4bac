import { databaseOf } from './handle'
import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import type { EventDraft } from '../../shared/protocol'
import { newSessionId, openStore } from './store'
import { spawnNode, storeModuleUrl, tempDir, waitForExit } from './testing/helpers'
import type { Store } from './types'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function freshStore(): { store: Store; dataDir: string } {
  const dataDir = tempDir()
  const store = openStore(dataDir)
  cleanups.push(() => {
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  return { store, dataDir }
}

const newSession = (store: Store, repo = '/repo') =>
  store.createSession({ repo, title: 'Fix the bug', provider: 'openai', model: 'gpt-test' })

const drafts: EventDraft[] = [
  {
    type: 'session.started',
    protocolVersion: 1,
    repo: '/repo',
    provider: 'openai',
    model: 'gpt-test',
    approvalPolicy: 'ask',
    maxSteps: 30,
    baselineSnapshotId: 1,
  },
  { type: 'user.message', text: 'Rename foo to bar — ünïcödé ✓' },
  {
    type: 'assistant.message',
    step: 1,
    text: '',
    toolCalls: [{ id: 'call_1', name: 'edit_file', arguments: '{"path":"a.ts"' }],
    usage: { inputTokens: 120, outputTokens: 30 },
    durationMs: 812,
    provider: 'openai',
    model: 'gpt-test',
  },
  {
    type: 'tool.started',
    callId: 'call_1',
    name: 'edit_file',
    args: { path: 'a.ts', nested: [1, null, 'x'] },
    mutating: true,
  },
  { type: 'approval.resolved', callId: 'call_1', decision: 'reject', by: 'user', reason: 'keep foo' },
  {
    type: 'tool.finished',
    callId: 'call_1',
    name: 'edit_file',
    ok: false,
    result: { ok: false, error: 'rejected' },
    durationMs: 3,
  },
  { type: 'checkpoint.created', snapshotId: 2, callId: 'call_1', paths: ['a.ts'] },
  {
    type: 'session.finished',
    reason: 'done',
    steps: 1,
    usage: { inputTokens: 120, outputTokens: 30 },
    durationMs: 900,
  },
]

describe('sessions', () => {
  it('creates, reads, lists and updates sessions', () => {
    const { store } = freshStore()
    const a = newSession(store, '/one')
    const b = store.createSession({
      repo: '/two',
      title: 'Fork',
      provider: 'ollama',
      model: 'qwen',
      parentId: a.id,
      forkSeq: 4,
    })
    expect(a).toEqual({
      id: a.id,
      repo: '/one',
      title: 'Fix the bug',
      provider: 'openai',
      model: 'gpt-test',
      status: 'idle',
      createdAt: a.createdAt,
      updatedAt: a.createdAt,
      parentId: null,
      forkSeq: null,
      deletedAt: null,
    })
    expect(store.getSession(b.id)).toEqual(b)
    expect(b.parentId).toBe(a.id)
    expect(b.forkSeq).toBe(4)

    store.setSessionStatus(a.id, 'interrupted')
    store.setSessionTitle(a.id, 'Renamed')
    expect(store.getSession(a.id)).toMatchObject({ status: 'interrupted', title: 'Renamed' })
    expect(store.listSessions({ repo: '/two' }).map((s) => s.id)).toEqual([b.id])
    expect(new Set(store.listSessions().map((s) => s.id))).toEqual(new Set([a.id, b.id]))
    expect(store.listSessions({ limit: 1 })).toHaveLength(1)
  })

  it('makes short ids that sort by creation time', () => {
    const ids = [0, 1, 1000, 86_400_000].map((d) => newSessionId(1_700_000_000_000 + d))
    expect(ids.every((id) => /^[0-9a-z]{13}$/.test(id))).toBe(true)
    expect([...ids].sort()).toEqual(ids)
  })

  it('finds a session by its full id or a unique prefix', () => {
    const { store } = freshStore()
    const a = store.createSession({ id: 'abc111', repo: '/r', title: 't', provider: 'openai', model: 'm' })
    const b = store.createSession({ id: 'abc222', repo: '/r', title: 't', provider: 'openai', model: 'm' })
    expect(store.findSession('abc111')?.id).toBe(a.id)
    expect(store.findSession('abc2')?.id).toBe(b.id)
    expect(store.findSession('abc')).toBeUndefined() // ambiguous
    expect(store.findSession('zzz')).toBeUndefined()
    expect(store.findSession('')).toBeUndefined()
  })
})

describe('events', () => {
  it('assigns seq 1, 2, 3… per session and round-trips whole event arrays', () => {
    const { store, dataDir } = freshStore()
    const s1 = newSession(store)
    const s2 = newSession(store)
    const before = Date.now()
    const appended = drafts.map((d) => store.appendEvent(s1.id, d))
    const other = store.appendEvent(s2.id, { type: 'user.message', text: 'elsewhere' })

    expect(appended.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(other.seq).toBe(1)
    for (const [i, e] of appended.entries()) {
      expect(e).toEqual({ ...drafts[i], sessionId: s1.id, seq: i + 1, ts: e.ts })
      expect(e.ts).toBeGreaterThanOrEqual(before)
    }
    expect(store.listEvents(s1.id)).toEqual(appended)
    expect(store.listEvents(s1.id, { afterSeq: 6 })).toEqual(appended.slice(6))
    expect(store.listEvents(s2.id)).toEqual([other])
    expect(store.getSession(s1.id)!.updatedAt).toBe(appended.at(-1)!.ts)

    // And after a reopen.
    store.close()
    const again = openStore(dataDir)
    expect(again.listEvents(s1.id)).toEqual(appended)
    again.close()
  })

  it('refuses an invalid event or an unknown session without writing anything', () => {
    const { store } = freshStore()
    const s = newSession(store)
    expect(() => store.appendEvent(s.id, { type: 'user.message' } as unknown as EventDraft)).toThrow(
      /invalid user.message event/,
    )
    expect(() => store.appendEvent('nope', { type: 'user.message', text: 'x' })).toThrow(
      'no session with id nope',
    )
    expect(store.listEvents(s.id)).toEqual([])
    expect(store.appendEvent(s.id, { type: 'user.message', text: 'x' }).seq).toBe(1)
  })

  it('loses no event a killed process reported committed', async () => {
    const { store, dataDir } = freshStore()
    const session = newSession(store)
    store.close()

    const reported: number[] = []
    const writer = await spawnNode(
      `import fs from 'node:fs'
       import { openStore } from ${JSON.stringify(storeModuleUrl)}
       const store = openStore(${JSON.stringify(dataDir)})
       for (let i = 1; ; i++) {
         const e = store.appendEvent(${JSON.stringify(session.id)}, { type: 'tool.output', callId: 'c', stream: 'stdout', text: 'line ' + i + ' ' + 'x'.repeat(i % 500) })
         fs.writeSync(1, 'committed ' + e.seq + '\\n')
       }`,
      /^committed 300$/,
      { tsSources: true, onLine: (line) => reported.push(Number(line.split(' ')[1])) },
    )
    writer.child.kill('SIGKILL')
    await waitForExit(writer.child)
    expect(writer.child.signalCode).toBe('SIGKILL')

    const reopened = openStore(dataDir)
    cleanups.push(() => reopened.close())
    expect(databaseOf(reopened).pragma('integrity_check', { simple: true })).toBe('ok')
    const events = reopened.listEvents(session.id)
    const last = reported.at(-1)!
    expect(last).toBeGreaterThanOrEqual(300)
    // Every reported event is there, in order, with the content the child wrote…
    expect(events.slice(0, last)).toEqual(
      reported.map((seq, i) => ({
        sessionId: session.id,
        seq,
        ts: events[i].ts,
        type: 'tool.output',
        callId: 'c',
        stream: 'stdout',
        text: `line ${seq} ${'x'.repeat(seq % 500)}`,
      })),
    )
    // …and at most the one being written when the kill landed follows.
    expect(events.length - last).toBeLessThanOrEqual(1)
  })
})

describe('traffic and settings', () => {
  it('round-trips raw traffic in order', () => {
    const { store } = freshStore()
    const s = newSession(store)
    store.appendTraffic(s.id, {
      direction: 'request',
      provider: 'ollama',
      url: 'http://127.0.0.1:11434/api/chat',
      body: '{"a":1}',
    })
    store.appendTraffic(s.id, {
      direction: 'response',
      provider: 'ollama',
      url: 'http://127.0.0.1:11434/api/chat',
      status: 200,
      body: '{"done":true}\n',
    })
    const rows = store.listTraffic(s.id)
    expect(rows).toEqual([
      {
        id: rows[0].id,
        ts: rows[0].ts,
        direction: 'request',
        provider: 'ollama',
        url: 'http://127.0.0.1:11434/api/chat',
        body: '{"a":1}',
      },
      {
        id: rows[1].id,
        ts: rows[1].ts,
        direction: 'response',
        provider: 'ollama',
        url: 'http://127.0.0.1:11434/api/chat',
        status: 200,
        body: '{"done":true}\n',
      },
    ])
    expect(rows[1].id).toBeGreaterThan(rows[0].id)
  })

  it('stores and overwrites settings', () => {
    const { store } = freshStore()
    expect(store.getSetting('theme')).toBeUndefined()
    store.setSetting('theme', 'dark')
    store.setSetting('theme', 'light')
    expect(store.getSetting('theme')).toBe('light')
  })
})
