import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EventDraft, StepwiseEvent } from '../../shared/protocol'
import { replayFile, startFakeModelServer, type FakeTurn } from '../../../test/fake-model-server'
import { validateChat, validateOllama, validateResponses } from '../../../test/fake-model-validate'
import { modelStreamFixture, sharedFixturesDir } from '../../../test/fixtures'
import { runTurn, userRequest } from '../../../test/provider-harness'
import { startSession } from '../session/start'
import { openStore } from '../store/store'
import { createProvider } from './index'
import { nativeMessages } from './ollama'
import { chatMessages } from './openai-chat'
import { buildResponsesInput } from './responses-input'
import { MISSING_OUTPUT, transcriptFromEvents } from './transcript'
import type { ModelTurn, TranscriptItem } from './types'
import { maxOf } from '../../shared/arrays'

/*
 * Property test of the one transcript: for event logs of real sessions cut at every point
 * and ended every way a turn can end (killed: the events stop; stopped; failed after a
 * retry; then a new message), the transcript sent next answers every call exactly once, right
 * after its turn, with unique ids and no orphan result — and each of the three wire shapes
 * passes the checks the fake model server applies (which follow the real APIs' 400s).
 * Sessions: turns parsed from the recorded streams (replayed twice, so their ids repeat as a
 * server that numbers calls per response repeats them) and one run by the agent against the
 * fake model server with ids `call_0`, `call_1` in every turn.
 */

const usage = { inputTokens: 1, outputTokens: 1 }

function stamp(drafts: EventDraft[]): StepwiseEvent[] {
  return drafts.map((d, i) => ({ ...d, sessionId: 's', seq: i + 1, ts: i }) as StepwiseEvent)
}

/** A session of `turns` (each a model turn with its calls run), as its events would be stored. */
function sessionOf(turns: ModelTurn[]): StepwiseEvent[] {
  const drafts: EventDraft[] = [{ type: 'user.message', text: 'task' }]
  turns.forEach((turn, i) => {
    const step = i + 1
    if (turn.text) drafts.push({ type: 'assistant.delta', step, text: turn.text.slice(0, 5) })
    if (turn.text.length > 5) drafts.push({ type: 'assistant.delta', step, text: turn.text.slice(5) })
    drafts.push({
      type: 'assistant.message',
      step,
      text: turn.text,
      toolCalls: turn.toolCalls,
      usage,
      durationMs: 1,
      provider: 'openai-chat',
      model: 'm',
    })
    for (const c of turn.toolCalls) {
      drafts.push({ type: 'tool.started', callId: c.id, name: c.name, args: {}, mutating: false })
      const result = { ok: true, turn: step, call: c.id }
      drafts.push({ type: 'tool.finished', callId: c.id, name: c.name, ok: true, result, durationMs: 1 })
    }
  })
  drafts.push({ type: 'session.finished', reason: 'done', steps: turns.length, usage, durationMs: 1 })
  return stamp(drafts)
}

/** Every way the events can end after a cut, each followed by the user's next message. */
function endings(cut: StepwiseEvent[]): StepwiseEvent[][] {
  const step = maxOf(
    cut.map((e) => ('step' in e && typeof e.step === 'number' ? e.step : 1)),
    1,
  )
  const finished = (reason: 'interrupted' | 'error'): EventDraft => ({
    type: 'session.finished',
    reason,
    steps: step,
    usage,
    durationMs: 1,
  })
  const tails: EventDraft[][] = [
    [], // killed: the events just stop
    [finished('interrupted')],
    [
      { type: 'model.retry', step, attempt: 1, delayMs: 1, reason: 'HTTP 500' },
      { type: 'error', code: 'server-error', message: 'kept failing' },
      finished('error'),
    ],
  ]
  return tails.flatMap((tail) => {
    const ended = [...cut.map(draftOf), ...tail]
    return [stamp(ended), stamp([...ended, { type: 'user.message', text: 'next' }])]
  })
}

function draftOf(e: StepwiseEvent): EventDraft {
  const { sessionId: _s, seq: _q, ts: _t, ...draft } = e
  return draft as EventDraft
}

/** The shape every protocol needs, checked on the provider-neutral transcript. */
function checkShape(items: TranscriptItem[]): void {
  const ids = new Set<string>()
  for (let i = 0; i < items.length; i++) {
    const item = items[i]
    // A tool item only ever follows its turn's calls (checked below, from the turn).
    if (item.role !== 'assistant') {
      if (item.role === 'tool') {
        const turn = items.slice(0, i).findLast((x) => x.role !== 'tool')
        expect(turn?.role, 'a tool result with no call before it').toBe('assistant')
      }
      continue
    }
    item.toolCalls.forEach((call, k) => {
      expect(ids.has(call.id), `call id ${call.id} used twice`).toBe(false)
      ids.add(call.id)
      const answer = items[i + 1 + k]
      expect(answer, `call ${call.id} unanswered`).toMatchObject({ role: 'tool', callId: call.id })
    })
    const after = items[i + 1 + item.toolCalls.length]
    expect(after?.role, 'a call answered twice').not.toBe('tool')
  }
}

/** Each stored result whose call is in the history reaches the transcript, none is replaced. */
function checkResultsKept(events: StepwiseEvent[], items: TranscriptItem[]): void {
  const outputs = items.flatMap((i) => (i.role === 'tool' ? [i.output] : []))
  const called = new Set(
    events.flatMap((e) => (e.type === 'assistant.message' ? e.toolCalls : [])).map((c) => c.id),
  )
  for (const e of events) {
    if (e.type === 'tool.finished' && called.has(e.callId))
      expect(outputs).toContain(JSON.stringify(e.result))
  }
}

function checkWire(items: TranscriptItem[]): void {
  expect(validateChat({ messages: chatMessages('sys', items) })).toBeUndefined()
  expect(validateOllama({ messages: nativeMessages('sys', items) }, ['tools'])).toBeUndefined()
  const { input } = buildResponsesInput(items, true)
  expect(validateResponses({ input }, new Map(), false)).toBeUndefined()
}

/** Every cut of `events`, every ending: the properties above. Returns how many logs were checked. */
function checkEveryCut(events: StepwiseEvent[]): number {
  let checked = 0
  for (let cut = 0; cut <= events.length; cut++) {
    for (const log of endings(events.slice(0, cut))) {
      const items = transcriptFromEvents(log)
      checkShape(items)
      checkResultsKept(log, items)
      checkWire(items)
      checked++
    }
  }
  return checked
}

const PROVIDER_OF = (file: string) =>
  file.startsWith('resp_') ? 'openai' : file.startsWith('chat_') ? 'openai-chat' : 'ollama'

describe('transcriptFromEvents over every cut of recorded sessions', () => {
  const turns = new Map<string, ModelTurn>()

  beforeAll(async () => {
    const files = fs
      .readdirSync(path.join(sharedFixturesDir, 'model-streams'))
      .filter((f) => /^(resp_|chat_|ollama_chat_)/.test(f))
    const server = await startFakeModelServer({ turns: files.map((f) => replayFile(modelStreamFixture(f))) })
    try {
      for (const file of files) {
        const provider = PROVIDER_OF(file)
        const baseUrl = provider === 'ollama' ? server.url : server.v1Url
        const outcome = await runTurn(
          createProvider({ provider, model: 'qwen2.5-coder:7b', baseUrl, apiKey: 'k' }),
          userRequest(),
        )
        if (outcome.turn && outcome.turn.toolCalls.length > 0) turns.set(file, outcome.turn)
      }
    } finally {
      await server.close()
    }
  })

  it('answers every call once, keeps every result and passes all three protocols', () => {
    // The streams with calls: at least one per protocol.
    expect([...turns.keys()].map(PROVIDER_OF).sort()).toEqual(
      expect.arrayContaining(['ollama', 'openai', 'openai-chat']),
    )
    let checked = 0
    for (const turn of turns.values()) {
      // The same response twice (ids repeated), then a final answer.
      checked += checkEveryCut(sessionOf([turn, turn, { text: 'Done.', toolCalls: [], usage }]))
    }
    expect(checked).toBeGreaterThan(1000)
  })

  it('keeps a partly streamed answer, marked interrupted, and sends it as the assistant said it', () => {
    const log = stamp([
      { type: 'user.message', text: 'task' },
      { type: 'assistant.delta', step: 1, text: 'Half an ' },
      { type: 'assistant.delta', step: 1, text: 'answer' },
      { type: 'session.finished', reason: 'interrupted', steps: 1, usage, durationMs: 1 },
      { type: 'user.message', text: 'go on' },
    ])
    expect(transcriptFromEvents(log)).toEqual([
      { role: 'user', text: 'task' },
      {
        role: 'assistant',
        text: 'Half an answer\n\n[Interrupted: this answer was cut off before it finished.]',
        toolCalls: [],
        interrupted: true,
      },
      { role: 'user', text: 'go on' },
    ])
  })

  it('pairs results with reused ids by order and drops a result that answers no call', () => {
    const call = (id: string) => ({ id, name: 'read_file', arguments: '{}' })
    const items = transcriptFromEvents(
      stamp([
        { type: 'user.message', text: 'task' },
        { type: 'tool.finished', callId: 'ghost', name: 'x', ok: true, result: { ok: true }, durationMs: 1 },
        ...sessionOf([
          { text: '', toolCalls: [call('call_0'), call('call_0')], usage },
          { text: '', toolCalls: [call('call_0')], usage },
        ]).map(draftOf),
      ]),
    )
    const tools = items.filter((i) => i.role === 'tool')
    expect(tools.map((t) => t.role === 'tool' && [t.callId, JSON.parse(t.output).turn])).toEqual([
      ['call_0', 1],
      ['call_0_2', 1],
      ['call_0_3', 2],
    ])
    expect(tools.map((t) => t.role === 'tool' && t.output)).not.toContain(MISSING_OUTPUT)
  })
})

describe('transcriptFromEvents over every cut of a session the agent ran', () => {
  let events: StepwiseEvent[] = []
  const dirs: string[] = []

  beforeAll(async () => {
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-transcript-repo-')))
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-transcript-data-'))
    dirs.push(repo, dataDir)
    fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n')
    const read = { name: 'read_file', arguments: { path: 'a.txt' } }
    // A server that numbers calls per response: call_0, call_1 in every turn.
    const turns: FakeTurn[] = [
      {
        text: 'Reading.',
        toolCalls: [
          { ...read, id: 'call_0' },
          { ...read, id: 'call_1' },
        ],
      },
      { toolCalls: [{ ...read, id: 'call_0' }] },
      { text: 'It says one.' },
    ]
    const server = await startFakeModelServer({ turns, models: ['coder:1b'] })
    const store = openStore(dataDir)
    try {
      const session = await startSession(store, {
        task: 'read a.txt',
        repo,
        provider: { provider: 'ollama', model: 'coder:1b', baseUrl: server.url },
        policy: 'auto-edit',
        approver: { requestApproval: () => Promise.reject(new Error('no approval expected')) },
      })
      const outcome = await session.run(new AbortController().signal)
      expect(outcome.reason).toBe('done')
      events = store.listEvents(session.sessionId)
    } finally {
      store.close()
      await server.close()
    }
  })

  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('stored unique call ids, and every cut gives a transcript all three protocols accept', () => {
    const ids = events.flatMap((e) => (e.type === 'assistant.message' ? e.toolCalls.map((c) => c.id) : []))
    expect(ids).toEqual(['call_0', 'call_1', 'call_0_2'])
    expect(checkEveryCut(events)).toBe(6 * (events.length + 1))
  })
})
