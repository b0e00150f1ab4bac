import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ApprovalAnswer, ApprovalPolicy, EventDraft } from '../../shared/protocol'
import { openStore } from '../store/store'
import { deferred, tempDir } from '../store/testing/helpers'
import type { Store } from '../store/types'
import type { ActionTool, ToolContext, ToolResult } from '../tools/types'
import type { ApprovalRequest } from './approvals'
import { ToolRunner } from './tool-runner'

/*
 * What a command needs before it starts (the checkpoint's watch, the ignored folders' record)
 * begins once the approval prompt is out and runs while the user reads it: on a big tree it took
 * ~0.5 s, and the prompt waited on it. The command itself never starts before it is done, and a
 * command refused outright never pays for it.
 */

let dir: string
let store: Store

beforeEach(() => {
  dir = tempDir('stepwise-runner-')
  store = openStore(dir)
})

afterEach(() => {
  store.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** One step of the runner's story, in the order it happened. */
type Log = string[]

function action(log: Log, verdict: 'ask' | 'deny'): ActionTool {
  return {
    name: 'build',
    family: 'exec',
    description: 'Runs the build.',
    input: z.object({}),
    mutating: true,
    async plan() {
      log.push('planned')
      return { ok: true, summary: 'the build', verdict, data: undefined }
    },
    async execute(): Promise<ToolResult> {
      log.push('executed')
      return { ok: true, output: 'built' }
    },
  }
}

interface Preparations {
  watch: Promise<void>
  record: Promise<void>
}

/** `answer`: the user's answer, or a promise of it (a user who takes their time). */
function runner(
  log: Log,
  prep: Preparations,
  answer: ApprovalAnswer | Promise<ApprovalAnswer>,
  verdict: 'ask' | 'deny' = 'ask',
  policy: ApprovalPolicy = 'ask',
) {
  const tool = action(log, verdict)
  return new ToolRunner({
    opts: {
      store,
      sessionId: 's1',
      toolContext: {
        root: dir,
        beforeCommand: () => (log.push('record'), prep.record),
      } as unknown as ToolContext,
      checkpoints: {
        expectChanges: () => (log.push('watch'), prep.watch),
        takeSnapshot: async () => {
          log.push('checkpoint')
          return { info: { id: 1 }, changed: { added: [], modified: [], deleted: [] } }
        },
      },
      approver: {
        async requestApproval(_request: ApprovalRequest) {
          log.push('asked')
          return answer
        },
      },
    },
    reads: { take: () => [] } as never,
    record: (draft: EventDraft) => ({ ...draft, seq: 0, ts: '' }) as never,
    policy: () => policy,
    allTools: () => [tool],
    offeredTools: () => [tool],
    now: () => 0,
  })
}

const call = { id: 'c1', name: 'build', arguments: '{}' }
const tick = () => new Promise((r) => setTimeout(r, 20))

describe('a command call and what it needs before it starts', () => {
  it('asks first, prepares while the user reads the prompt, and starts only once prepared', async () => {
    const log: Log = []
    const watch = deferred()
    const record = deferred()
    let answer!: (a: ApprovalAnswer) => void
    const user = new Promise<ApprovalAnswer>((resolve) => (answer = resolve))
    const ran = runner(log, { watch: watch.promise, record: record.promise }, user).run(
      call,
      new AbortController().signal,
    )
    await tick()
    expect(log).toEqual(['planned', 'asked', 'watch', 'record'])
    answer({ decision: 'accept' })
    watch.resolve()
    await tick()
    expect(log).toEqual(['planned', 'asked', 'watch', 'record'])
    record.resolve()
    const result = await ran
    expect(result).toMatchObject({ ok: true, output: 'built' })
    expect(log).toEqual(['planned', 'asked', 'watch', 'record', 'executed', 'checkpoint'])
  })

  it('a command the user turns down does not wait on them, and their failure is no loose rejection', async () => {
    const log: Log = []
    const watch = deferred()
    const record = deferred()
    const user = new Promise<ApprovalAnswer>((resolve) =>
      setTimeout(() => resolve({ decision: 'reject', reason: 'not now' }), 20),
    )
    const result = await runner(log, { watch: watch.promise, record: record.promise }, user).run(
      call,
      new AbortController().signal,
    )
    expect(result.ok).toBe(false)
    expect(log).toEqual(['planned', 'asked', 'watch', 'record'])
    watch.reject(new Error('watch failed'))
    record.resolve()
    await tick()
  })

  it('an approver that answers at once (no one to ask) shows no prompt to prepare behind', async () => {
    const log: Log = []
    const never = new Promise<void>(() => undefined)
    const refused = await runner(log, { watch: never, record: never }, { decision: 'reject' }).run(
      call,
      new AbortController().signal,
    )
    expect(refused.ok).toBe(false)
    expect(log).toEqual(['planned', 'asked'])
    const accepted: Log = []
    await runner(
      accepted,
      { watch: Promise.resolve(), record: Promise.resolve() },
      { decision: 'accept' },
    ).run(call, new AbortController().signal)
    expect(accepted).toEqual(['planned', 'asked', 'watch', 'record', 'executed', 'checkpoint'])
  })

  it('a command refused outright never starts them', async () => {
    const log: Log = []
    const never = new Promise<void>(() => undefined)
    const result = await runner(log, { watch: never, record: never }, { decision: 'accept' }, 'deny').run(
      call,
      new AbortController().signal,
    )
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('Refused') })
    expect(log).toEqual(['planned'])
  })

  it('a failed preparation stops the command: it does not run unprepared', async () => {
    const log: Log = []
    const watch = deferred()
    watch.reject(new Error('no inotify watches left'))
    const result = await runner(
      log,
      { watch: watch.promise, record: Promise.resolve() },
      { decision: 'accept' },
    ).run(call, new AbortController().signal)
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('no inotify watches left') })
    expect(log).toEqual(['planned', 'asked', 'watch', 'record'])
  })
})

/** Longer than the runner waits to see whether an answer is still streaming (WARM_AFTER_MS). */
const stillStreaming = () => new Promise((r) => setTimeout(r, 60))

describe('a command call the model is still streaming', () => {
  const accept: ApprovalAnswer = { decision: 'accept' }

  it('is prepared for from its name on, and the whole call takes that over instead of starting again', async () => {
    const log: Log = []
    const watch = deferred()
    const record = deferred()
    const tools = runner(log, { watch: watch.promise, record: record.promise }, accept)
    tools.beginTurn()
    tools.warm('build')
    await stillStreaming()
    expect(log).toEqual(['watch', 'record'])
    tools.warm('build') // a second call to it in the same turn: already under way
    tools.answerComplete()
    const ran = tools.run(call, new AbortController().signal)
    await tick()
    expect(log).toEqual(['watch', 'record', 'planned', 'asked'])
    watch.resolve()
    record.resolve()
    expect(await ran).toMatchObject({ ok: true, output: 'built' })
    expect(log).toEqual(['watch', 'record', 'planned', 'asked', 'executed', 'checkpoint'])
  })

  it('an answer whole before the wait is over goes the usual way: prompt first, then preparations', async () => {
    const log: Log = []
    const tools = runner(log, { watch: Promise.resolve(), record: Promise.resolve() }, accept)
    tools.warm('build')
    tools.answerComplete()
    await stillStreaming()
    expect(log).toEqual([])
    await tools.run(call, new AbortController().signal)
    expect(log).toEqual(['planned', 'asked', 'watch', 'record', 'executed', 'checkpoint'])
  })

  it('starts nothing for a tool that needs no preparing, an unknown one, or under read-only', async () => {
    const log: Log = []
    const ready = { watch: Promise.resolve(), record: Promise.resolve() }
    const tools = runner(log, ready, accept)
    tools.warm('read_file')
    tools.warm('')
    const readOnly: Log = []
    runner(readOnly, ready, accept, 'ask', 'read-only').warm('build')
    await stillStreaming()
    expect(log).toEqual([])
    expect(readOnly).toEqual([])
  })

  it("a turn's unused warm-up is not the next turn's: its call prepares afresh", async () => {
    const log: Log = []
    const tools = runner(log, { watch: Promise.resolve(), record: Promise.resolve() }, accept)
    tools.warm('build')
    await stillStreaming()
    tools.beginTurn()
    await tools.run(call, new AbortController().signal)
    expect(log).toEqual(['watch', 'record', 'planned', 'asked', 'watch', 'record', 'executed', 'checkpoint'])
  })

  it('a warm-up that failed stops the command as a failed preparation would', async () => {
    const log: Log = []
    const watch = deferred()
    const tools = runner(log, { watch: watch.promise, record: Promise.resolve() }, accept)
    tools.warm('build')
    await stillStreaming()
    watch.reject(new Error('no inotify watches left'))
    const result = await tools.run(call, new AbortController().signal)
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('no inotify watches left') })
    expect(log).toEqual(['watch', 'record', 'planned', 'asked'])
  })
})

describe('a command call written as text, while the answer streams', () => {
  const accept: ApprovalAnswer = { decision: 'accept' }
  const ready = () => ({ watch: Promise.resolve(), record: Promise.resolve() })

  it('is prepared for once its tool is named, even split across pieces, and only once a turn', async () => {
    const log: Log = []
    const tools = runner(log, ready(), accept)
    tools.beginTurn()
    tools.noticeText('<tool_call>\n{"name": "bu')
    await stillStreaming()
    expect(log).toEqual([])
    tools.noticeText('ild", "arguments": {}}\n</tool_call>')
    await stillStreaming()
    expect(log).toEqual(['watch', 'record'])
    tools.noticeText('<tool_call>\n{"name": "build", "arguments": {}}\n</tool_call>')
    await stillStreaming()
    expect(log).toEqual(['watch', 'record'])
  })

  it('takes the name only as a whole word, and nothing under read-only', async () => {
    const log: Log = []
    const tools = runner(log, ready(), accept)
    tools.noticeText('I will rebuild it, then run build_all and build.sh, see builds/')
    const readOnly: Log = []
    runner(readOnly, ready(), accept, 'ask', 'read-only').noticeText('[build()]')
    await stillStreaming()
    expect(log).toEqual([])
    expect(readOnly).toEqual([])
  })

  it('warms again in the next turn, whose call takes it over', async () => {
    const log: Log = []
    const tools = runner(log, ready(), accept)
    tools.noticeText('functions.build:0')
    await stillStreaming()
    tools.beginTurn()
    tools.noticeText('[TOOL_CALLS]build[ARGS]{}')
    await stillStreaming()
    expect(log).toEqual(['watch', 'record', 'watch', 'record'])
    await tools.run(call, new AbortController().signal)
    expect(log).toEqual(['watch', 'record', 'watch', 'record', 'planned', 'asked', 'executed', 'checkpoint'])
  })
})
