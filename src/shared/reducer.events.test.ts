import { describe, expect, it } from 'vitest'
import { stepwiseEventSchema, type EventDraft, type StepwiseEvent } from './protocol'
import { emptySessionView, reduceEvent, reduceEvents, type SessionView, type TimelineStep } from './reducer'
import { stepsOf } from './steps'

/*
 * The reducer every view of a session goes through (live, replay, `sessions show`, the export),
 * fed with events that pass the protocol's own schema: a fixture that no longer matches what the
 * core records fails here first, instead of testing a shape nobody sends.
 */

/** Stamps drafts as the store does (seq 1, 2, 3… in one session) and parses each through the schema. */
function recorded(drafts: readonly EventDraft[], first = 1): StepwiseEvent[] {
  return drafts.map((d, i) =>
    stepwiseEventSchema.parse({ ...d, sessionId: 's1', seq: first + i, ts: 10_000 + (first + i) * 100 }),
  )
}

const usage = { inputTokens: 120, outputTokens: 30 }
const started: EventDraft = {
  type: 'session.started',
  protocolVersion: 1,
  repo: '/p',
  provider: 'ollama',
  model: 'coder:7b',
  approvalPolicy: 'ask',
  maxSteps: 50,
}
const twoHunks = '@@ -1 +1 @@\n-a\n+A\n@@ -9 +9 @@\n-z\n+Z\n'
const firstHunk = '@@ -1 +1 @@\n-a\n+A\n'

/** A whole first turn: a step proposing two file changes (one partly taken, one rejected), then a command. */
const firstTurn: EventDraft[] = [
  started, // 1
  { type: 'turn.started', turn: 1, kind: 'message' }, // 2
  { type: 'user.message', text: 'rename the helper' }, // 3
  { type: 'assistant.delta', step: 1, text: 'I will ' }, // 4
  { type: 'assistant.delta', step: 1, text: 'edit two files.' }, // 5
  {
    type: 'assistant.message',
    step: 1,
    text: 'I will edit two files.',
    toolCalls: [
      { id: 'c1', name: 'edit_file', arguments: '{"path":"a.ts"}' },
      { id: 'c2', name: 'edit_file', arguments: '{"path":"b.ts"}' },
    ],
    usage,
    durationMs: 40,
    provider: 'ollama',
    model: 'coder:7b',
  }, // 6
  {
    type: 'change.proposed',
    step: 1,
    index: 0,
    count: 2,
    change: { callId: 'c1', tool: 'edit_file', path: 'a.ts', change: 'modify', diff: twoHunks },
  }, // 7
  {
    type: 'change.proposed',
    step: 1,
    index: 1,
    count: 2,
    change: { callId: 'c2', tool: 'edit_file', path: 'b.ts', change: 'modify', diff: '-b\n+B\n' },
  }, // 8
  { type: 'tool.started', callId: 'c1', name: 'edit_file', args: { path: 'a.ts' }, mutating: true }, // 9
  {
    type: 'approval.requested',
    callId: 'c1',
    tool: 'edit_file',
    subject: { kind: 'file', path: 'a.ts', change: 'modify', diff: twoHunks, before: 'a\n', after: 'A\n' },
  }, // 10
  { type: 'approval.resolved', callId: 'c1', decision: 'partial', by: 'user', appliedDiff: firstHunk }, // 11
  { type: 'tool.finished', callId: 'c1', name: 'edit_file', ok: true, result: { ok: true }, durationMs: 3 }, // 12
  { type: 'checkpoint.created', snapshotId: 5, callId: 'c1', paths: ['a.ts'] }, // 13
  { type: 'tool.started', callId: 'c2', name: 'edit_file', args: { path: 'b.ts' }, mutating: true }, // 14
  {
    type: 'approval.requested',
    callId: 'c2',
    tool: 'edit_file',
    subject: { kind: 'file', path: 'b.ts', change: 'modify', diff: '-b\n+B\n', before: 'b\n', after: 'B\n' },
  }, // 15
  { type: 'approval.resolved', callId: 'c2', decision: 'reject', by: 'user', reason: 'keep b' }, // 16
  {
    type: 'tool.finished',
    callId: 'c2',
    name: 'edit_file',
    ok: false,
    result: { ok: false, error: 'The user rejected this change: keep b' },
    durationMs: 1,
  }, // 17
  {
    type: 'assistant.message',
    step: 2,
    text: '',
    toolCalls: [{ id: 'c3', name: 'run_tests', arguments: '{}' }],
    usage,
    durationMs: 20,
    provider: 'ollama',
    model: 'coder:7b',
  }, // 18
  { type: 'tool.started', callId: 'c3', name: 'run_tests', args: {}, mutating: true }, // 19
  {
    type: 'approval.requested',
    callId: 'c3',
    tool: 'run_tests',
    subject: { kind: 'command', command: 'npm test', cwd: '.', verdict: 'ask' },
    rule: { kind: 'command', words: ['npm', 'test'], exact: false },
  }, // 20
  { type: 'approval.resolved', callId: 'c3', decision: 'accept', by: 'user' }, // 21
  { type: 'tool.output', callId: 'c3', stream: 'stdout', text: 'PASS 3\n' }, // 22
  { type: 'tool.output', callId: 'c3', stream: 'stderr', text: 'warn: slow\n' }, // 23
  {
    type: 'tool.finished',
    callId: 'c3',
    name: 'run_tests',
    ok: true,
    result: { ok: true, exitCode: 0 },
    durationMs: 900,
  }, // 24
  { type: 'checkpoint.created', snapshotId: 6, callId: 'c3', paths: [] }, // 25
  {
    type: 'assistant.message',
    step: 3,
    text: 'Renamed in a.ts.',
    toolCalls: [],
    usage,
    durationMs: 10,
    provider: 'ollama',
    model: 'coder:7b',
  }, // 26
  { type: 'session.finished', reason: 'done', steps: 3, usage, durationMs: 2000, message: 'Done.' }, // 27
  { type: 'turn.finished', turn: 1, reason: 'done', durationMs: 2000 }, // 28
]

/** A second turn on another model that fails mid-stream, then the user rewinds and forks. */
const secondTurn: EventDraft[] = [
  { type: 'session.configured', provider: 'openai-chat', model: 'gpt-local' }, // 29
  { type: 'turn.started', turn: 2, kind: 'message' }, // 30
  { type: 'user.message', text: 'now the docs' }, // 31
  { type: 'assistant.delta', step: 4, text: 'Half an ans' }, // 32
  { type: 'model.retry', step: 4, attempt: 1, delayMs: 500, reason: 'HTTP 500' }, // 33
  { type: 'error', code: 'server-error', message: 'The server kept failing.', hint: 'Try again later.' }, // 34
  { type: 'session.finished', reason: 'error', steps: 1, usage, durationMs: 700, message: 'Failed.' }, // 35
  { type: 'turn.finished', turn: 2, reason: 'error', durationMs: 700 }, // 36
  {
    type: 'checkpoint.restored',
    kind: 'rewind',
    snapshotId: 5,
    savedSnapshotId: 7,
    toSeq: 13,
    paths: ['a.ts'],
  }, // 37
  { type: 'session.forked', childSessionId: 's2', atSeq: 13, atStep: 6 }, // 38
]

const session = recorded([...firstTurn, ...secondTurn])

/** The view after the event with this seq (seqs start at 1, so the prefix is the first `seq` events). */
function at(seq: number): SessionView {
  return reduceEvents(session.slice(0, seq))
}

function stepOf(view: SessionView, kind: TimelineStep['kind'], index = 0): TimelineStep {
  const found = view.steps.filter((s) => s.kind === kind)[index]
  if (!found) throw new Error(`no ${kind} step #${index} in ${view.steps.map((s) => s.kind).join(', ')}`)
  return found
}

function toolStep(view: SessionView, callId: string) {
  const found = view.steps.find((s) => s.kind === 'tool' && s.callId === callId)
  if (found?.kind !== 'tool') throw new Error(`no tool step for ${callId}`)
  return found
}

describe('the reducer folds each kind of event', () => {
  it('session.started sets who and where; turn.started alone changes nothing but the seq', () => {
    expect(at(1)).toMatchObject({
      sessionId: 's1',
      repo: '/p',
      provider: 'ollama',
      model: 'coder:7b',
      baseUrl: null,
      approvalPolicy: 'ask',
      status: 'idle',
      startedAt: 10_100,
      lastSeq: 1,
    })
    expect({ ...at(2), lastSeq: 1 }).toEqual(at(1))
  })

  it('streamed deltas make one model step that the full message completes, keeping the first seq', () => {
    expect(at(5).steps[1]).toMatchObject({
      kind: 'model',
      step: 1,
      text: 'I will edit two files.',
      status: 'streaming',
    })
    expect(at(5).status).toBe('thinking')
    const model = at(6).steps[1]
    expect(model).toMatchObject({
      kind: 'model',
      seq: 4,
      status: 'ok',
      usage,
      durationMs: 40,
      model: 'coder:7b',
    })
    expect(at(6)).toMatchObject({ status: 'running-tool', modelSteps: 1, usage })
  })

  it('proposed changes wait on the timeline in call order; a starting call takes its row and seq', () => {
    const proposed = at(8)
    expect(
      proposed.steps.map((s) => (s.kind === 'tool' ? [s.callId, s.status, s.proposed, s.seq] : s.kind)),
    ).toEqual(['user', 'model', ['c1', 'waiting', true, 7], ['c2', 'waiting', true, 8]])
    expect(toolStep(proposed, 'c1').approval).toEqual({
      decision: 'pending',
      by: 'user',
      diff: twoHunks,
      requestedSeq: 7,
    })
    const running = at(9)
    expect(running.steps).toHaveLength(4)
    const c1 = toolStep(running, 'c1')
    expect(c1).toMatchObject({ seq: 7, status: 'running', name: 'edit_file', args: { path: 'a.ts' } })
    expect(c1).not.toHaveProperty('proposed')
    expect(c1).not.toHaveProperty('approval')
    expect(toolStep(running, 'c2').proposed).toBe(true)
  })

  it('an approval waits, then a partial answer keeps the hunks applied and the time waited', () => {
    const waiting = at(10)
    expect(waiting.status).toBe('waiting')
    expect(waiting.pendingApprovals).toEqual(['c1'])
    expect(toolStep(waiting, 'c1')).toMatchObject({
      status: 'waiting',
      approval: { decision: 'pending', diff: twoHunks, requestedSeq: 10, requestedTs: 11_000 },
    })
    const answered = at(11)
    expect(answered.pendingApprovals).toEqual([])
    expect(answered.status).toBe('running-tool')
    expect(toolStep(answered, 'c1')).toMatchObject({
      status: 'running',
      approval: { decision: 'partial', by: 'user', diff: firstHunk, requestedSeq: 10, waitMs: 100 },
    })
    expect(toolStep(at(12), 'c1')).toMatchObject({ status: 'ok', result: { ok: true }, durationMs: 3 })
  })

  it('a checkpoint is a step of its own right after its call, naming the call it belongs to', () => {
    const view = at(13)
    const i = view.steps.findIndex((s) => s.kind === 'checkpoint')
    expect(view.steps[i]).toEqual({
      kind: 'checkpoint',
      seq: 13,
      ts: 11_300,
      snapshotId: 5,
      paths: ['a.ts'],
      callId: 'c1',
    })
    // The call's row is still where its proposal put it; the second proposal waits after it.
    expect(view.steps.slice(2, i).map((s) => (s.kind === 'tool' ? s.callId : s.kind))).toEqual(['c1', 'c2'])
  })

  it('a rejected call stays rejected when its (failed) result arrives, with the reason given', () => {
    const c2 = toolStep(at(17), 'c2')
    expect(c2).toMatchObject({ status: 'rejected', approval: { decision: 'reject', reason: 'keep b' } })
    expect(c2.result).toEqual({ ok: false, error: 'The user rejected this change: keep b' })
  })

  it('a command: its rule offered, its output from both streams in order, then its result', () => {
    expect(toolStep(at(20), 'c3')).toMatchObject({
      status: 'waiting',
      approval: { decision: 'pending', by: 'user' },
    })
    const c3 = toolStep(at(24), 'c3')
    expect(c3).toMatchObject({
      status: 'ok',
      output: 'PASS 3\nwarn: slow\n',
      result: { ok: true, exitCode: 0 },
    })
    expect(c3.approval).toMatchObject({ decision: 'accept', waitMs: 100 })
    expect(at(24).status).toBe('thinking')
  })

  it('session.finished ends the run; a turn.finished after it changes nothing but the seq', () => {
    const done = at(27)
    expect(done).toMatchObject({
      status: 'finished',
      finishReason: 'done',
      finishMessage: 'Done.',
      finishedAt: 12_700,
      modelSteps: 3,
      usage: { inputTokens: 360, outputTokens: 90 },
      pendingApprovals: [],
    })
    expect(done.steps.at(-1)).toEqual({
      kind: 'finish',
      seq: 27,
      ts: 12_700,
      reason: 'done',
      message: 'Done.',
      modelSteps: 3,
      usage,
      durationMs: 2000,
    })
    expect({ ...at(28), lastSeq: 27 }).toEqual(done)
  })

  it('a model switch marks the timeline and drops the old server; the next answer comes from the new model', () => {
    const switched = at(29)
    expect(switched).toMatchObject({ provider: 'openai-chat', model: 'gpt-local', baseUrl: null })
    expect(switched.steps.at(-1)).toEqual({
      kind: 'switch',
      seq: 29,
      ts: 12_900,
      provider: 'openai-chat',
      model: 'gpt-local',
      from: { provider: 'ollama', model: 'coder:7b' },
    })
  })

  it('a turn that fails mid-stream: the partial answer is interrupted, the error and the end follow', () => {
    const failed = at(35)
    expect(failed.steps.slice(-5).map((s) => s.kind)).toEqual(['switch', 'user', 'model', 'error', 'finish'])
    expect(stepOf(failed, 'model', 3)).toMatchObject({
      step: 4,
      text: 'Half an ans',
      retries: 1,
      status: 'interrupted',
    })
    expect(stepOf(failed, 'error')).toEqual({
      kind: 'error',
      seq: 34,
      ts: 13_400,
      message: 'The server kept failing.',
      code: 'server-error',
      hint: 'Try again later.',
    })
    expect(failed).toMatchObject({ status: 'finished', finishReason: 'error', finishMessage: 'Failed.' })
  })

  it('a rewind is a step that leaves the status; a fork of this session is a step naming the child', () => {
    const rewound = at(37)
    expect(rewound.status).toBe('finished')
    expect(rewound.steps.at(-1)).toEqual({
      kind: 'restore',
      seq: 37,
      ts: 13_700,
      restore: 'rewind',
      snapshotId: 5,
      savedSnapshotId: 7,
      toSeq: 13,
      paths: ['a.ts'],
    })
    expect(at(38).steps.at(-1)).toEqual({
      kind: 'fork',
      seq: 38,
      ts: 13_800,
      childSessionId: 's2',
      atSeq: 13,
      atStep: 6,
    })
  })

  it('a fork child starts from its parent and reads as waiting once its copied history is restored', () => {
    const child = recorded([
      { ...started, parent: { sessionId: 's1', seq: 13, step: 6 } },
      { type: 'user.message', text: 'rename the helper' },
      { type: 'assistant.delta', step: 1, text: 'cut off here' },
      { type: 'checkpoint.restored', kind: 'fork', snapshotId: 5, savedSnapshotId: 8, paths: ['a.ts'] },
    ])
    const view = reduceEvents(child)
    expect(view.parent).toEqual({ sessionId: 's1', seq: 13, step: 6 })
    expect(view.status).toBe('idle')
    expect(stepOf(view, 'model')).toMatchObject({ text: 'cut off here', status: 'interrupted' })
  })

  it('the marks: an unparsed call being repaired, a finding, a failed verify, a compaction', () => {
    const view = reduceEvents(
      recorded([
        started,
        {
          type: 'toolcall.unparsed',
          step: 1,
          family: 'hermes',
          problem: 'bad JSON',
          format: '<tool_call>',
          repair: 'Send JSON.',
        },
        {
          type: 'review.finding',
          callId: 'r1',
          finding: { file: 'a.ts', line: 3, severity: 'high', category: 'bug', message: 'off by one' },
        },
        { type: 'verify.finished', round: 1, maxRounds: 3, passed: false, failures: ['a.test.ts'] },
        { type: 'context.compacted', beforeTokens: 7000, afterTokens: 3000, summary: 'so far' },
      ]),
    )
    expect(view.status).toBe('thinking')
    expect(view.steps.map((s) => s.kind)).toEqual(['unparsed-call', 'finding', 'verify', 'compaction'])
    expect(view.steps[0]).toMatchObject({ family: 'hermes', repair: 'Send JSON.' })
    expect(view.steps[2]).toMatchObject({ round: 1, passed: false, failures: ['a.test.ts'] })
  })
})

describe('a turn that ends without its session.finished', () => {
  it('ends what it left open: the stream interrupted, unasked proposals not run, nothing pending', () => {
    const view = reduceEvents(
      recorded([
        ...firstTurn.slice(0, 10), // c1 asked, c2 only proposed
        { type: 'turn.finished', turn: 1, reason: 'error', durationMs: 5 },
      ]),
    )
    expect(view).toMatchObject({ status: 'finished', finishReason: 'error', finishedAt: 11_100 })
    // The asked call's request stays on its row (it was never answered); only the turn's list is emptied.
    expect(view.pendingApprovals).toEqual([])
    const c2 = toolStep(view, 'c2')
    expect(c2).toMatchObject({
      status: 'error',
      result: { ok: false, error: 'Not run: the turn ended before this change was asked.' },
    })
    expect(c2).not.toHaveProperty('proposed')
  })
})

describe('replay at a step', () => {
  it('reducing the events up to a step is the state the live view showed right after that event', () => {
    let live = emptySessionView
    const shown: SessionView[] = []
    for (const e of session) {
      live = reduceEvent(live, e)
      shown.push(live)
    }
    for (const step of stepsOf(session)) {
      const replayed = reduceEvents(session.slice(0, step.count))
      expect(replayed).toEqual(shown[step.count - 1])
      expect(replayed.lastSeq).toBe(step.seq)
    }
    expect(reduceEvents(session)).toEqual(live)
  })

  it('folding on from any saved view gives the same state as folding from the start', () => {
    const whole = reduceEvents(session)
    for (let cut = 0; cut <= session.length; cut++) {
      expect(reduceEvents(session.slice(cut), reduceEvents(session.slice(0, cut)))).toEqual(whole)
    }
  })

  it('leaves the events and the view it starts from untouched', () => {
    const frozen = structuredClone(session)
    const before = reduceEvents(session.slice(0, 10))
    const copy = structuredClone(before)
    reduceEvents(session.slice(10), before)
    expect(session).toEqual(frozen)
    expect(before).toEqual(copy)
  })
})

describe('order and redelivery', () => {
  it('an event redelivered (same seq) changes nothing: no doubled text, usage or pending approval', () => {
    const whole = reduceEvents(session)
    expect(reduceEvents(session, whole)).toBe(whole)
    // Each prefix with its last event delivered twice is the prefix.
    for (let n = 1; n <= session.length; n++) {
      const prefix = session.slice(0, n)
      expect(reduceEvents([...prefix, session[n - 1]])).toEqual(reduceEvents(prefix))
    }
    const asked = reduceEvents([...session.slice(0, 10), session[9], session[4]])
    expect(asked.pendingApprovals).toEqual(['c1'])
    expect(asked.steps[1]).toMatchObject({ text: 'I will edit two files.' })
  })

  it('a delta older than the view (out of order, behind the full message) leaves the answered step alone', () => {
    const answered = at(6)
    const late = session[4] // the second delta of step 1, seq 5
    expect(reduceEvent(answered, late)).toBe(answered)
    expect(answered.steps.filter((st) => st.kind === 'model')).toHaveLength(1)
  })

  it('a delta of the next model step opens a new step instead of running on the answered one', () => {
    const view = reduceEvents(
      recorded([
        { type: 'assistant.delta', step: 1, text: 'one' },
        { ...(firstTurn[25] as EventDraft), step: 1, text: 'one' } as EventDraft,
        { type: 'assistant.delta', step: 2, text: 'two' },
      ]),
    )
    expect(view.steps.map((s) => (s.kind === 'model' ? [s.step, s.text, s.status] : s.kind))).toEqual([
      [1, 'one', 'ok'],
      [2, 'two', 'streaming'],
    ])
  })

  it('tool events for a call the view never saw start change no step', () => {
    const base = reduceEvents(recorded([started]))
    const stray = recorded(
      [
        { type: 'tool.output', callId: 'zz', stream: 'stdout', text: 'x' },
        {
          type: 'tool.finished',
          callId: 'zz',
          name: 'run_command',
          ok: true,
          result: { ok: true },
          durationMs: 1,
        },
      ],
      2,
    )
    expect(reduceEvents(stray, base).steps).toEqual(base.steps)
  })

  it('a decision the policy made without asking shows no wait', () => {
    const view = reduceEvents(
      recorded([
        { type: 'tool.started', callId: 'c1', name: 'edit_file', args: { path: 'a' }, mutating: true },
        { type: 'approval.resolved', callId: 'c1', decision: 'accept', by: 'policy' },
      ]),
    )
    expect(toolStep(view, 'c1').approval).toEqual({
      decision: 'accept',
      by: 'policy',
      requestedSeq: 2,
      reason: undefined,
      diff: undefined,
    })
  })
})
