import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { EventDraft, HostMessage, StepwiseEvent } from '../../../shared/protocol'
import type { StepwiseApi } from '../../../preload/api'

/*
 * The renderer's event store against a fake host: live events wait in a queue and are applied
 * once per animation frame (a timer backs up a hidden tab that gets no frames), and the map of
 * approvals still waiting follows the requests, answers, finished calls and finished sessions.
 * Each test loads the store afresh: its queue and frame handle are module state.
 */

type Store = typeof import('./store')

const SESSION = 's1'

/** Frames requested and not yet run; `runFrames` runs them as the browser would. */
let frames: Map<number, FrameRequestCallback>
let nextFrame: number

function runFrames(): void {
  const due = [...frames.values()]
  frames.clear()
  for (const callback of due) callback(0)
}

let deliver: (message: HostMessage) => void
let stored: StepwiseEvent[]

function stamp(drafts: EventDraft[], from: number, sessionId = SESSION): StepwiseEvent[] {
  // The drafts are events without their envelope; the envelope makes them whole events.
  return drafts.map((d, i) => ({ ...d, sessionId, seq: from + i, ts: 1000 + from + i }) as StepwiseEvent)
}

const started: EventDraft = {
  type: 'session.started',
  protocolVersion: 1,
  repo: '/p',
  provider: 'ollama',
  model: 'm',
  approvalPolicy: 'ask',
  maxSteps: 50,
}

const COMMAND = { kind: 'command', command: 'ls', cwd: '/p', verdict: 'ask' } as const

function asked(callId: string): EventDraft[] {
  return [
    { type: 'tool.started', callId, name: 'run_command', args: { command: 'ls' }, mutating: false },
    { type: 'approval.requested', callId, tool: 'run_command', subject: COMMAND },
  ]
}

const replies: Record<string, () => unknown> = {
  'app/info': () => ({ notices: [] }),
  'settings/get': () => ({}),
  'session/list': () => ({ sessions: [] }),
  'session/events': () => ({ events: stored }),
  'project/open': () => ({ repo: '/p', name: 'p' }),
}

const fakeHost: StepwiseApi = {
  invoke: ((command: string) => Promise.resolve(replies[command]())) as StepwiseApi['invoke'],
  onEvent(listener) {
    deliver = listener
    return () => undefined
  },
}

/** A store connected to the fake host with session s1 open on `history`. */
async function openStore(history: EventDraft[]): Promise<Store> {
  vi.resetModules()
  const store = await import('./store')
  stored = stamp(history, 1)
  await store.connect(fakeHost)
  await store.loadSession(SESSION)
  return store
}

beforeEach(() => {
  frames = new Map()
  nextFrame = 1
  vi.useFakeTimers()
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    const id = nextFrame++
    frames.set(id, callback)
    return id
  })
  vi.stubGlobal('cancelAnimationFrame', (id: number) => frames.delete(id))
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('live events', () => {
  it('wait for the next frame, then land in one state change', async () => {
    const store = await openStore([started])
    let changes = 0
    const unsubscribe = store.useApp.subscribe(() => changes++)
    const live = stamp([{ type: 'user.message', text: 'hi' }, ...asked('c1')], 2)
    for (const e of live) deliver(e)
    expect(store.useApp.getState().events).toHaveLength(1)
    expect(frames.size).toBe(1) // one frame asked for the whole burst
    runFrames()
    unsubscribe()
    expect(changes).toBe(1)
    expect(store.useApp.getState().events.map((e) => e.seq)).toEqual([1, 2, 3, 4])
    expect(store.useApp.getState().view.lastSeq).toBe(4)
  })

  it('are applied by the backup timer when no frame comes (a hidden tab), and only once', async () => {
    const store = await openStore([started])
    deliver(stamp([{ type: 'user.message', text: 'hi' }], 2)[0])
    vi.advanceTimersByTime(39)
    expect(store.useApp.getState().events).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(store.useApp.getState().events).toHaveLength(2)
    expect(frames.size).toBe(0) // the frame was cancelled, so it cannot apply them again
  })

  it('leave out another session’s events and ones the history already holds', async () => {
    const store = await openStore([started, { type: 'user.message', text: 'hi' }])
    for (const e of stamp([{ type: 'user.message', text: 'elsewhere' }], 3, 's2')) deliver(e)
    for (const e of stamp([{ type: 'user.message', text: 'hi' }], 2)) deliver(e) // seq 2 again
    for (const e of stamp([{ type: 'user.message', text: 'next' }], 3)) deliver(e)
    runFrames()
    const events = store.useApp.getState().events
    expect(events.map((e) => [e.sessionId, e.seq])).toEqual([
      [SESSION, 1],
      [SESSION, 2],
      [SESSION, 3],
    ])
  })

  it('go through the host notices untouched: a notice is applied at once, not queued', async () => {
    const store = await openStore([started])
    deliver({ type: 'host.queue-changed', sessionId: SESSION, items: [] })
    expect(store.useApp.getState().queued).toEqual({ [SESSION]: [] })
    expect(frames.size).toBe(0)
  })
})

describe('the approvals map', () => {
  const resolved = (callId: string): EventDraft => ({
    type: 'approval.resolved',
    callId,
    decision: 'accept',
    by: 'user',
  })
  const finished = (callId: string): EventDraft => ({
    type: 'tool.finished',
    callId,
    name: 'run_command',
    ok: true,
    result: {},
    durationMs: 1,
  })

  it('holds each live request by call id until it is answered', async () => {
    const store = await openStore([started])
    for (const e of stamp([...asked('c1'), ...asked('c2')], 2)) deliver(e)
    runFrames()
    expect(Object.keys(store.useApp.getState().approvals).sort()).toEqual(['c1', 'c2'])
    expect(store.useApp.getState().approvals.c1.subject).toEqual(COMMAND)
    for (const e of stamp([resolved('c1')], 6)) deliver(e)
    runFrames()
    expect(Object.keys(store.useApp.getState().approvals)).toEqual(['c2'])
  })

  it('drops a request whose call finished without an answer (the turn was stopped)', async () => {
    const store = await openStore([started])
    for (const e of stamp([...asked('c1'), finished('c1')], 2)) deliver(e)
    runFrames()
    expect(store.useApp.getState().approvals).toEqual({})
  })

  it('is emptied when the session finishes', async () => {
    const store = await openStore([started])
    const end: EventDraft = {
      type: 'session.finished',
      reason: 'interrupted',
      steps: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 1,
    }
    for (const e of stamp([...asked('c1'), ...asked('c2'), end], 2)) deliver(e)
    runFrames()
    expect(store.useApp.getState().approvals).toEqual({})
  })

  it('is rebuilt from a stored history: only the requests still waiting', async () => {
    const store = await openStore([started, ...asked('c1'), resolved('c1'), finished('c1'), ...asked('c2')])
    expect(Object.keys(store.useApp.getState().approvals)).toEqual(['c2'])
    expect(store.useApp.getState().view.pendingApprovals).toEqual(['c2'])
  })
})
