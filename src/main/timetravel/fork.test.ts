import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { reduceEvents } from '../../shared/reducer'
import { checkForkPoint, InvalidStepError } from '../agent/resume'
import { transcriptFromEvents } from '../providers/transcript'
import type { Store } from '../store/types'
import { continueFork, forkSession } from './fork'
import { forkFixture, noApprover, scripted, type ForkFixture } from './fork-test-support'
import { replayAt, replaySession } from './replay'
import { undoSession } from './restore'

let repo: string
let store: Store
let parentSession: () => ReturnType<ForkFixture['parentSession']>

beforeEach(() => {
  const f = forkFixture()
  repo = f.repo
  store = f.store
  parentSession = f.parentSession
  cleanup.push(f.close)
})

afterEach(() => {
  for (const done of cleanup.splice(0)) done()
})

const cleanup: Array<() => void> = []

describe('transcriptFromEvents', () => {
  it('rebuilds what the model was sent, turn by turn', async () => {
    const { events, provider } = await parentSession()
    const end = events.at(-1)!.seq
    const full = transcriptFromEvents(events, end)
    // The third request carried everything before the final answer; the answer closes it.
    expect(full.slice(0, -1)).toEqual(
      provider.requests[2].transcript.map(({ ...item }) => stripResponseId(item)),
    )
    expect(full.at(-1)).toEqual({ role: 'assistant', text: 'Done.', toolCalls: [] })
  })

  it('refuses a step between a call and its result, naming the steps around it', async () => {
    const { events, afterFirst, secondCall } = await parentSession()
    let error: unknown
    try {
      checkForkPoint(events, secondCall)
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(InvalidStepError)
    const e = error as InvalidStepError
    expect(e.before).toBe(secondCall - 1)
    expect(e.after).toBeGreaterThan(secondCall)
    expect(e.message).toContain(`step ${secondCall} is between a tool call and its result`)
    expect(() => checkForkPoint(events, 999)).toThrow(/out of range/)
    expect(afterFirst).toBeLessThan(secondCall)
  })
})

function stripResponseId<T extends object>(item: T): T {
  const { responseId: _r, ...rest } = item as T & { responseId?: string }
  return rest as T
}

describe('forkSession', () => {
  it('forks into a git worktree with the files at N, leaving the project alone', async () => {
    const parent = await parentSession()
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-fork-wt-')), 'wt')
    cleanup.push(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }))
    const fork = await forkSession(store, {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      files: { kind: 'worktree', dir },
    })
    expect(fork.repo).toBe(fs.realpathSync(dir))
    // A new fork has run nothing yet: idle, neither running nor stopped.
    expect(store.getSession(fork.sessionId)?.status).toBe('idle')
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('two\n')
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('three\n')
    const child = store.listEvents(fork.sessionId)
    const copied = parent.events.filter((e) => e.seq > 1 && e.seq <= parent.afterFirst)
    expect(child.slice(1, -1).map(({ type }) => type)).toEqual(copied.map(({ type }) => type))
    expect(child[0]).toMatchObject({
      type: 'session.started',
      repo: fork.repo,
      parent: { sessionId: parent.sessionId, seq: parent.afterFirst },
    })
    expect(child.at(-1)).toMatchObject({ type: 'checkpoint.restored', kind: 'fork', paths: ['a.txt'] })
    expect(store.getSession(fork.sessionId)).toMatchObject({
      parentId: parent.sessionId,
      forkSeq: parent.afterFirst,
    })
    const parentView = reduceEvents(store.listEvents(parent.sessionId))
    expect(parentView.steps.at(-1)).toMatchObject({
      kind: 'fork',
      childSessionId: fork.sessionId,
      atSeq: parent.afterFirst,
    })
  })

  it('forks in place: the present is checkpointed first, and an undo brings it back', async () => {
    const parent = await parentSession()
    const fork = await forkSession(store, {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      files: { kind: 'in-place' },
    })
    expect(fork.repo).toBe(repo)
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('two\n')
    const undo = await undoSession(store, fork.sessionId)
    expect(undo.status).toBe('restored')
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('three\n')
  })

  it('refuses a step inside a call/result pair before touching anything', async () => {
    const parent = await parentSession()
    await expect(
      forkSession(store, {
        sessionId: parent.sessionId,
        atSeq: parent.secondCall,
        files: { kind: 'in-place' },
      }),
    ).rejects.toThrow(InvalidStepError)
    expect(store.listSessions()).toHaveLength(1)
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('three\n')
  })
})

describe('re-run from N on another model', () => {
  it('continues with the history up to N and nothing after it', async () => {
    const parent = await parentSession()
    const fork = await forkSession(store, {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      files: { kind: 'in-place' },
      model: { provider: 'openai-chat', model: 'other' },
      policy: 'auto-edit',
    })
    const other = scripted([{ text: 'Stopping at two.' }], 'other')
    const session = await continueFork(store, fork, {
      provider: { provider: 'openai-chat', model: 'other' },
      providerOverride: other,
      policy: 'auto-edit',
      approver: noApprover,
    })
    const outcome = await session.run(new AbortController().signal)
    expect(outcome.reason).toBe('done')
    expect(other.requests[0].transcript).toEqual(transcriptFromEvents(parent.events, parent.afterFirst))
    expect(other.requests[0].transcript.map((i) => i.role)).toEqual(['user', 'assistant', 'tool'])
    const child = store.listEvents(fork.sessionId)
    expect(child.slice(-3)).toMatchObject([
      { type: 'assistant.message', step: 2, model: 'other', text: 'Stopping at two.' },
      { type: 'session.finished', reason: 'done', steps: 1 },
      { type: 'turn.finished', reason: 'done' },
    ])
    expect(store.getSession(fork.sessionId)?.status).toBe('done')
  })

  it('after a final answer, asks the model to continue', async () => {
    const parent = await parentSession()
    const end = parent.events.find((e) => e.type === 'assistant.message' && e.step === 3)!.seq
    const fork = await forkSession(store, {
      sessionId: parent.sessionId,
      atSeq: end,
      files: { kind: 'in-place' },
    })
    const other = scripted([{ text: 'Nothing more.' }], 'other')
    const session = await continueFork(store, fork, {
      provider: { provider: 'openai-chat', model: 'other' },
      providerOverride: other,
      policy: 'auto-edit',
      approver: noApprover,
    })
    await session.run(new AbortController().signal)
    expect(other.requests[0].transcript.at(-1)).toEqual({ role: 'user', text: 'Continue from here.' })
  })
})

describe('replay', () => {
  it('gives every event in order, with the diff of each checkpoint', async () => {
    const parent = await parentSession()
    const frames = [...replaySession(store, parent.sessionId)]
    expect(frames.map((f) => f.event)).toEqual(store.listEvents(parent.sessionId))
    const diffs = frames.filter((f) => f.event.type === 'checkpoint.created').map((f) => f.diff)
    expect(diffs).toEqual([
      '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n',
      '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n',
    ])
    expect(frames.at(-1)!.view).toEqual(reduceEvents(store.listEvents(parent.sessionId)))
  })

  it('replayAt gives the view and the files of a step', async () => {
    const parent = await parentSession()
    const at = replayAt(store, parent.sessionId, parent.afterFirst)!
    expect(at.view).toEqual(reduceEvents(parent.events.filter((e) => e.seq <= parent.afterFirst)))
    const first = parent.events.find((e) => e.type === 'checkpoint.created')!
    expect(at.snapshotId).toBe(first.type === 'checkpoint.created' ? first.snapshotId : -1)
  })
})
