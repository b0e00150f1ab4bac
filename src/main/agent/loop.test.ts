import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { StepwiseEvent, ToolCall } from '../../shared/protocol'
import type { ModelProvider, ModelRequest, ModelTurn } from '../providers/types'
import { ProviderError } from '../providers/types'
import { startSession } from '../session/start'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import type { ApprovalAnswer, Approver } from './approvals'
import type { AgentOptions } from './loop'
import { FOREGROUND_MAX_MS, foreground } from '../foreground'

type Step =
  | Partial<ModelTurn>
  | ProviderError
  | ((req: ModelRequest) => Partial<ModelTurn> | Promise<Partial<ModelTurn>>)

/** A model that plays a script: the remote model is the one thing we cannot run here. */
function scriptedProvider(steps: Step[]): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = []
  let i = 0
  return {
    id: 'openai-chat',
    model: 'scripted',
    baseUrl: 'http://127.0.0.1:1/v1',
    requests,
    async streamTurn(request, handlers) {
      requests.push(structuredClone(request))
      const step = steps[i++]
      if (step === undefined) throw new Error('script exhausted')
      if (step instanceof ProviderError) throw step
      const turn = typeof step === 'function' ? await step(request) : step
      if (turn.text) handlers.onText(turn.text)
      handlers.onTraffic({ direction: 'request', provider: 'openai-chat', url: 'fake', body: '{}' })
      return { text: '', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, ...turn }
    },
  }
}

function call(id: string, name: string, args: unknown): ToolCall {
  return { id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }
}

const answering = (answers: ApprovalAnswer[]): Approver & { asked: string[] } => {
  const asked: string[] = []
  return {
    asked,
    async requestApproval(req) {
      const { subject } = req
      asked.push(
        subject.kind === 'file'
          ? subject.path
          : subject.kind === 'conflict'
            ? `conflict:${subject.path}`
            : subject.kind === 'command'
              ? subject.command
              : `${subject.server}/${subject.tool}`,
      )
      const next = answers.shift()
      if (!next) throw new Error('no answer scripted')
      return next
    },
  }
}

let repo: string
let dataDir: string
let store: Store

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-loop-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-loop-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\nthree\n')
  fs.writeFileSync(path.join(repo, '.env'), 'SECRET=1\n')
  store = openStore(dataDir)
})

afterEach(() => {
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function run(
  steps: Step[],
  opts: {
    policy?: 'ask' | 'auto-edit' | 'full-auto' | 'read-only'
    approver?: Approver
    maxSteps?: number
    maxToolCalls?: number
    repair?: AgentOptions['repair']
  } = {},
) {
  const provider = scriptedProvider(steps)
  const emitted: StepwiseEvent[] = []
  const session = await startSession(store, {
    task: 'change a.txt',
    repo,
    provider: { provider: 'openai-chat', model: 'scripted' },
    providerOverride: provider,
    policy: opts.policy ?? 'auto-edit',
    maxSteps: opts.maxSteps,
    maxToolCalls: opts.maxToolCalls,
    repair: opts.repair,
    approver: opts.approver ?? answering([]),
    emit: (e) => emitted.push(e),
    retry: { sleep: async () => {} },
  })
  const outcome = await session.run(new AbortController().signal)
  return {
    outcome,
    emitted,
    provider,
    sessionId: session.sessionId,
    events: store.listEvents(session.sessionId),
  }
}

const types = (events: StepwiseEvent[]) => events.map((e) => e.type)

describe('Agent loop', () => {
  it('reads, edits with approval, checkpoints, and finishes — every event stored before it is emitted', async () => {
    const approver = answering([{ decision: 'accept' }])
    const { outcome, emitted, events, provider } = await run(
      [
        { toolCalls: [call('c1', 'read_file', { path: 'a.txt' })] },
        { toolCalls: [call('c2', 'edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' })] },
        { text: 'Changed two to TWO.' },
      ],
      { policy: 'ask', approver },
    )
    expect(outcome.reason).toBe('done')
    expect(outcome.steps).toBe(3)
    expect(outcome.usage).toEqual({ inputTokens: 30, outputTokens: 15 })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
    expect(approver.asked).toEqual(['a.txt'])
    expect(emitted).toEqual(events)
    expect(types(events)).toEqual([
      'session.started',
      'turn.started',
      'user.message',
      'assistant.message',
      'tool.started',
      'tool.finished',
      'assistant.message',
      'tool.started',
      'approval.requested',
      'approval.resolved',
      'tool.finished',
      'checkpoint.created',
      'assistant.delta',
      'assistant.message',
      'session.finished',
      'turn.finished',
    ])
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => events[0].seq + i))
    const checkpoint = events.find((e) => e.type === 'checkpoint.created')
    expect(checkpoint).toMatchObject({ callId: 'c2', paths: ['a.txt'] })
    // The model saw the tool results of each call, in order.
    const last = provider.requests[2].transcript
    expect(last.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool'])
    const editResult = JSON.parse((last[4] as { output: string }).output)
    expect(editResult.ok).toBe(true)
  })

  it('tells the model a rejection and its reason, and leaves the file alone', async () => {
    const approver = answering([{ decision: 'reject', reason: 'keep lowercase' }])
    const { provider, events } = await run(
      [
        { toolCalls: [call('c1', 'read_file', { path: 'a.txt' })] },
        { toolCalls: [call('c2', 'edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' })] },
        { text: 'ok' },
      ],
      { policy: 'ask', approver },
    )
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n')
    const output = JSON.parse((provider.requests[2].transcript[4] as { output: string }).output)
    expect(output.ok).toBe(false)
    expect(output.error).toContain('keep lowercase')
    expect(events.some((e) => e.type === 'checkpoint.created')).toBe(false)
    expect(events.find((e) => e.type === 'approval.resolved')).toMatchObject({
      decision: 'reject',
      by: 'user',
    })
  })

  it('writes the user’s edited version and sends the model the diff that was applied', async () => {
    const approver = answering([{ decision: 'edited', editedContent: 'one\nTwo!\nthree\n' }])
    const { provider } = await run(
      [
        { toolCalls: [call('c1', 'read_file', { path: 'a.txt' })] },
        { toolCalls: [call('c2', 'edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' })] },
        { text: 'ok' },
      ],
      { policy: 'ask', approver },
    )
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('one\nTwo!\nthree\n')
    const output = JSON.parse((provider.requests[2].transcript[4] as { output: string }).output)
    expect(output.user_edited).toBe(true)
    expect(output.applied_diff).toContain('+Two!')
  })

  it('"always" stops asking for the rest of the session', async () => {
    const approver = answering([{ decision: 'always', scope: 'session' }])
    await run(
      [
        { toolCalls: [call('c1', 'write_file', { path: 'new1.txt', content: 'x\n' })] },
        { toolCalls: [call('c2', 'write_file', { path: 'new2.txt', content: 'y\n' })] },
        { text: 'ok' },
      ],
      { policy: 'ask', approver },
    )
    expect(approver.asked).toEqual(['new1.txt'])
    expect(fs.readFileSync(path.join(repo, 'new2.txt'), 'utf8')).toBe('y\n')
  })

  it("holds the process's foreground for a turn's whole life, each request with a bound of its own", async () => {
    const busyAt: Record<string, boolean> = {}
    const approver = answering([{ decision: 'accept' }])
    const asking = approver.requestApproval.bind(approver)
    approver.requestApproval = (req, signal) => ((busyAt.approval = foreground.busy()), asking(req, signal))
    // Each request is looked at when the provider gets it and once its sending has had a turn of the loop.
    const askModel =
      (name: string, turn: Partial<ModelTurn>): Step =>
      async () => {
        busyAt[name] = foreground.busy()
        await new Promise((resolve) => setImmediate(resolve))
        busyAt[`${name}, out`] = foreground.busy()
        return turn
      }
    await run(
      [
        askModel('first request', {
          toolCalls: [call('c1', 'edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' })],
        }),
        askModel('second request', { text: 'ok' }),
      ],
      { policy: 'ask', approver },
    )
    expect(busyAt).toEqual({
      'first request': true,
      'first request, out': true,
      approval: true,
      'second request': true,
      'second request, out': true,
    })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n')
    // The turn is over: background work goes on.
    expect(foreground.busy()).toBe(false)
  })

  it("lets the foreground go when a turn ends in an error, and renews a request's hold past its bound", async () => {
    const clock = { now: 0 }
    vi.spyOn(performance, 'now').mockImplementation(() => clock.now)
    try {
      const busyAt: Record<string, boolean> = {}
      const slowModel: Step = async () => {
        // The turn's first hold lasts past its bound while the request is made...
        clock.now += FOREGROUND_MAX_MS + 1
        await new Promise((resolve) => setImmediate(resolve))
        busyAt['request out, past the bound of the first hold'] = foreground.busy()
        return { toolCalls: [call('c1', 'read_file', { path: 'a.txt' })] }
      }
      const { outcome } = await run([
        slowModel,
        new ProviderError('auth', 'Incorrect API key provided', { status: 401 }),
      ])
      // ...and the request got a hold of its own.
      expect(busyAt).toEqual({ 'request out, past the bound of the first hold': true })
      expect(outcome.reason).toBe('error')
      expect(foreground.busy()).toBe(false)
    } finally {
      vi.restoreAllMocks()
    }
  })

  it('takes a fresh hold for the answer to a request sent again after the server said it overflowed', async () => {
    const clock = { now: 0 }
    vi.spyOn(performance, 'now').mockImplementation(() => clock.now)
    try {
      const busyAt: Record<string, boolean> = {}
      const approver = answering([{ decision: 'accept' }])
      const asking = approver.requestApproval.bind(approver)
      approver.requestApproval = (req, signal) => ((busyAt.approval = foreground.busy()), asking(req, signal))
      const slowAnswer: Step = () => {
        // The resent request's wait lasts past the bound of every hold taken before it...
        clock.now += FOREGROUND_MAX_MS + 1
        return {
          toolCalls: [call('c1', 'edit_file', { path: 'a.txt', old_string: 'two', new_string: 'TWO' })],
        }
      }
      const { outcome } = await run(
        [new ProviderError('context-overflow', 'the prompt is too long'), slowAnswer, { text: 'ok' }],
        { policy: 'ask', approver },
      )
      // ...and the step after its answer still holds the foreground.
      expect(busyAt).toEqual({ approval: true })
      expect(outcome.reason).toBe('done')
    } finally {
      vi.restoreAllMocks()
    }
  })

  it('answers malformed arguments, unknown tools and escaping paths as errors, and keeps going', async () => {
    const { outcome, provider } = await run([
      {
        toolCalls: [
          call('c1', 'read_file', '{"path": "a.txt"'),
          call('c2', 'launch_rockets', {}),
          call('c3', 'read_file', { path: '../outside.txt' }),
          call('c4', 'read_file', { path: '.env' }),
          call('c5', 'read_file', { path: 42 }),
        ],
      },
      { text: 'sorry' },
    ])
    expect(outcome.reason).toBe('done')
    const outputs = provider.requests[1].transcript
      .filter((t) => t.role === 'tool')
      .map((t) => JSON.parse((t as { output: string }).output))
    expect(outputs.map((o) => o.ok)).toEqual([false, false, false, false, false])
    expect(outputs[1].error).toContain('launch_rockets')
    expect(outputs[1].error).toContain('read_file')
    for (const o of outputs) expect(typeof o.error).toBe('string')
  })

  it('stops at the step limit', async () => {
    const loop: Step = () => ({ toolCalls: [call(`c${Math.random()}`, 'list_files', {})] })
    const { outcome, events } = await run([loop, loop, loop, loop], { maxSteps: 3 })
    expect(outcome.reason).toBe('step-limit')
    expect(outcome.steps).toBe(3)
    expect(events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'step-limit', steps: 3 })
    expect(events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'step-limit' })
  })

  it('stops at the tool-call limit, answering the calls past it without running them', async () => {
    const two: Step = () => ({
      toolCalls: [call(`c${Math.random()}`, 'list_files', {}), call(`d${Math.random()}`, 'list_files', {})],
    })
    const { outcome, events, provider } = await run([two, two, two], { maxToolCalls: 3 })
    expect(outcome.reason).toBe('step-limit')
    expect(outcome.message).toBe(
      'Stopped after 3 tool calls (the limit). Continue with a higher --max-tool-calls or a narrower task.',
    )
    expect(outcome.steps).toBe(2)
    expect(events.filter((e) => e.type === 'tool.started')).toHaveLength(3)
    expect(provider.requests).toHaveLength(2)
  })

  it('read-only offers no mutating tool and refuses one called anyway', async () => {
    const { provider, events } = await run(
      [{ toolCalls: [call('c1', 'write_file', { path: 'x.txt', content: 'no' })] }, { text: 'ok' }],
      { policy: 'read-only' },
    )
    const offered = provider.requests[0].tools.map((t) => t.name)
    expect(offered).toContain('read_file')
    expect(offered).not.toContain('write_file')
    expect(fs.existsSync(path.join(repo, 'x.txt'))).toBe(false)
    expect(events.find((e) => e.type === 'tool.finished')).toMatchObject({ ok: false })
  })

  it('retries a dropped connection, then gives up on auth errors without retrying', async () => {
    const { outcome, events } = await run([
      new ProviderError('network', 'socket hang up'),
      { toolCalls: [call('c1', 'list_files', {})] },
      new ProviderError('auth', 'Incorrect API key provided', { status: 401 }),
    ])
    expect(types(events).filter((t) => t === 'model.retry')).toHaveLength(1)
    expect(outcome.reason).toBe('error')
    expect(outcome.errorKind).toBe('auth')
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'auth' })
    expect(events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'error' })
    expect(events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'error' })
  })

  it('ends as interrupted when the signal aborts, keeping every event', async () => {
    const controller = new AbortController()
    const provider = scriptedProvider([
      () => {
        controller.abort()
        return { toolCalls: [call('c1', 'list_files', {})] }
      },
    ])
    const session = await startSession(store, {
      task: 't',
      repo,
      provider: { provider: 'openai-chat', model: 'scripted' },
      providerOverride: provider,
      policy: 'auto-edit',
      approver: answering([]),
    })
    const outcome = await session.run(controller.signal)
    expect(outcome.reason).toBe('interrupted')
    const events = store.listEvents(session.sessionId)
    expect(events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'interrupted' })
    expect(events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'interrupted' })
    expect(store.getSession(session.sessionId)?.status).toBe('interrupted')
  })

  it('--until-green sends failures back to the model until build and tests pass', async () => {
    const verdicts = [
      { passed: false, failures: ['src/a.test.ts:3 adds: expected 3, got 4'] },
      { passed: true, failures: [] },
    ]
    const { outcome, events, provider } = await run([{ text: 'done' }, { text: 'fixed it' }], {
      repair: { maxRounds: 15, verify: async () => verdicts.shift()! },
    })
    expect(outcome.reason).toBe('done')
    const verifies = events.filter((e) => e.type === 'verify.finished')
    expect(verifies.map((e) => [e.round, e.passed])).toEqual([
      [0, false],
      [1, true],
    ])
    const repairMessage = provider.requests[1].transcript.at(-1)
    expect(repairMessage).toMatchObject({ role: 'user' })
    expect((repairMessage as { text: string }).text).toContain('src/a.test.ts:3 adds: expected 3, got 4')
  })

  it('--until-green stops after the last repair round and says exactly what still fails', async () => {
    const { outcome, events } = await run([{ text: 'done' }, { text: 'still done' }, { text: 'again' }], {
      repair: {
        maxRounds: 2,
        verify: async () => ({ passed: false, failures: ['build: x.ts(1,1): error TS2304'] }),
      },
    })
    expect(outcome.reason).toBe('error')
    expect(outcome.errorKind).toBe('verify-failed')
    expect(outcome.message).toContain('Still failing after 2 repair rounds')
    expect(outcome.message).toContain('build: x.ts(1,1): error TS2304')
    expect(events.filter((e) => e.type === 'verify.finished')).toHaveLength(3)
  })
})
