import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { stepNumberAt, stepsOf } from '../../shared/steps'
import { ForkError, forkSession } from './fork'
import { forkFixture, type ForkFixture } from './fork-test-support'
import { undoSession } from './restore'

// What the app's fork dialog and `sessions fork` offer: the title, the real timings, the
// step numbers, the conversation or the files alone, and a worktree in a folder of its own.

let f: ForkFixture
const extra: string[] = []
beforeEach(() => {
  f = forkFixture()
})
afterEach(() => {
  f.close()
  for (const dir of extra.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const read = (root: string) => fs.readFileSync(path.join(root, 'a.txt'), 'utf8')

describe('a fork', () => {
  it('is titled "Fork of …", keeps the times its history first had, and records the step number', async () => {
    const parent = await f.parentSession()
    const fork = await forkSession(f.store, {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      files: { kind: 'in-place' },
    })
    const step = stepNumberAt(stepsOf(parent.events), parent.afterFirst)
    expect(step).toBeGreaterThan(1)
    expect(fork).toMatchObject({ title: 'Fork of count up', what: 'both', parent: { step } })
    expect(f.store.getSession(fork.sessionId)?.title).toBe('Fork of count up')
    const child = f.store.listEvents(fork.sessionId)
    // The session's start and every copied event at its first time; only the fork's restore is new.
    const copiedTimes = parent.events
      .filter((e) => e.seq <= parent.afterFirst && e.type !== 'session.started')
      .map((e) => e.ts)
    expect(child.slice(1, -1).map((e) => e.ts)).toEqual(copiedTimes)
    expect(child[0].ts).toBe(parent.events[0].ts)
    expect(child[0]).toMatchObject({ parent: { sessionId: parent.sessionId, seq: parent.afterFirst, step } })
    expect(child.at(-1)!.ts).toBeGreaterThanOrEqual(parent.events.at(-1)!.ts)
    expect(f.store.listEvents(parent.sessionId).at(-1)).toMatchObject({
      type: 'session.forked',
      atSeq: parent.afterFirst,
      atStep: step,
    })
    // The child's step N is the parent's: its copied history numbers the same.
    expect(stepsOf(child).filter((s) => s.seq <= child.length - 1).length).toBe(step)
  })

  it('of the conversation alone leaves the files as they are now', async () => {
    const parent = await f.parentSession()
    const fork = await forkSession(f.store, {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      files: { kind: 'in-place' },
      what: 'conversation',
    })
    expect(read(f.repo)).toBe('three\n')
    const child = f.store.listEvents(fork.sessionId)
    expect(child.some((e) => e.type === 'checkpoint.restored')).toBe(false)
    expect(child.map((e) => e.type)).toEqual([
      'session.started',
      ...parent.events.filter((e) => e.seq > 1 && e.seq <= parent.afterFirst).map((e) => e.type),
    ])
    expect(fork.snapshotId).toBeUndefined()
  })

  it('of the files alone starts a new chat on the files as at the step, and an undo brings the present back', async () => {
    const parent = await f.parentSession()
    const fork = await forkSession(f.store, {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      files: { kind: 'in-place' },
      what: 'files',
    })
    expect(read(f.repo)).toBe('two\n')
    const child = f.store.listEvents(fork.sessionId)
    expect(child.map((e) => e.type)).toEqual(['session.started', 'checkpoint.restored'])
    expect(child[0]).toMatchObject({ baselineSnapshotId: fork.snapshotId })
    expect((await undoSession(f.store, fork.sessionId)).status).toBe('restored')
    expect(read(f.repo)).toBe('three\n')
  })

  it('into a worktree with no folder named goes next to the repository, a new folder each time', async () => {
    const parent = await f.parentSession()
    extra.push(`${f.repo}-fork-1`, `${f.repo}-fork-2`)
    const first = await forkSession(f.store, {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      files: { kind: 'worktree' },
    })
    const second = await forkSession(f.store, {
      sessionId: parent.sessionId,
      atSeq: parent.events.at(-1)!.seq,
      files: { kind: 'worktree' },
    })
    expect([first.repo, second.repo]).toEqual([`${f.repo}-fork-1`, `${f.repo}-fork-2`])
    expect([read(first.repo), read(second.repo), read(f.repo)]).toEqual(['two\n', 'three\n', 'three\n'])
    expect(f.store.getSession(first.sessionId)?.repo).toBe(first.repo)
  })

  it('refuses a step inside a call/result pair by step numbers, and the conversation alone in a worktree', async () => {
    const parent = await f.parentSession()
    const steps = stepsOf(parent.events)
    const n = stepNumberAt(steps, parent.secondCall)
    await expect(
      forkSession(f.store, {
        sessionId: parent.sessionId,
        atSeq: parent.secondCall,
        files: { kind: 'in-place' },
      }),
    ).rejects.toThrow(
      `step ${n} is between a tool call and its result: a fork from there would invent an ending the session did not have. Choose step ${n - 1} or step ${n + 1}.`,
    )
    await expect(
      forkSession(f.store, {
        sessionId: parent.sessionId,
        atSeq: parent.afterFirst,
        files: { kind: 'worktree' },
        what: 'conversation',
      }),
    ).rejects.toThrow(ForkError)
    expect(f.store.listSessions()).toHaveLength(1)
    expect(fs.existsSync(`${f.repo}-fork-1`)).toBe(false)
  })
})
