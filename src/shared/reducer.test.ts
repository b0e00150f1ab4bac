import { describe, expect, it } from 'vitest'
import type { EventDraft, StepwiseEvent } from './protocol'
import { reduceEvents } from './reducer'

function stamp(drafts: EventDraft[]): StepwiseEvent[] {
  return drafts.map((d, i) => ({ ...d, sessionId: 's1', seq: i + 1, ts: 1000 + i }) as StepwiseEvent)
}

const usage = { inputTokens: 100, outputTokens: 20 }

describe('reduceEvents', () => {
  const events = stamp([
    {
      type: 'session.started',
      protocolVersion: 1,
      repo: '/p',
      provider: 'ollama',
      model: 'm',
      approvalPolicy: 'ask',
      maxSteps: 50,
    },
    { type: 'user.message', text: 'fix it' },
    { type: 'assistant.delta', step: 1, text: 'Look' },
    { type: 'assistant.delta', step: 1, text: 'ing' },
    {
      type: 'assistant.message',
      step: 1,
      text: 'Looking',
      toolCalls: [{ id: 'c1', name: 'edit_file', arguments: '{}' }],
      usage,
      durationMs: 5,
      provider: 'ollama',
      model: 'm',
    },
    { type: 'tool.started', callId: 'c1', name: 'edit_file', args: { path: 'a' }, mutating: true },
    {
      type: 'approval.requested',
      callId: 'c1',
      tool: 'edit_file',
      subject: { kind: 'file', path: 'a', change: 'modify', diff: '-x\n+y\n', before: 'x\n', after: 'y\n' },
    },
  ])

  it('builds the timeline live: streaming text joins one model step, an approval waits', () => {
    const view = reduceEvents(events)
    expect(view.status).toBe('waiting')
    expect(view.pendingApprovals).toEqual(['c1'])
    expect(view.steps.map((s) => s.kind)).toEqual(['user', 'model', 'tool'])
    expect(view.steps[1]).toMatchObject({ kind: 'model', text: 'Looking', status: 'ok', seq: 3, usage })
    expect(view.steps[2]).toMatchObject({
      kind: 'tool',
      status: 'waiting',
      approval: { decision: 'pending' },
    })
    expect(view.usage).toEqual(usage)
  })

  it('replays to the same end state as live, event by event', () => {
    const rest = stamp([
      { type: 'approval.resolved', callId: 'c1', decision: 'reject', by: 'user', reason: 'no' },
      {
        type: 'tool.finished',
        callId: 'c1',
        name: 'edit_file',
        ok: false,
        result: { ok: false, error: 'rejected' },
        durationMs: 3,
      },
      { type: 'session.finished', reason: 'done', steps: 1, usage, durationMs: 10 },
    ]).map((e, i) => ({ ...e, seq: events.length + i + 1 }))
    const all = [...events, ...rest]
    let live = reduceEvents([])
    for (const e of all) live = reduceEvents([e], live)
    const replayed = reduceEvents(all)
    expect(replayed).toEqual(live)
    expect(replayed.status).toBe('finished')
    expect(replayed.finishReason).toBe('done')
    expect(replayed.pendingApprovals).toEqual([])
    expect(replayed.steps[2]).toMatchObject({
      status: 'rejected',
      approval: { decision: 'reject', reason: 'no' },
    })
  })

  it('a retry replaces the text streamed by the failed attempt once the next attempt streams', () => {
    const drafts: EventDraft[] = [
      { type: 'assistant.delta', step: 1, text: 'partial' },
      { type: 'model.retry', step: 1, attempt: 1, delayMs: 500, reason: 'socket hang up' },
    ]
    // Until the next attempt streams, what the user saw stays.
    expect(reduceEvents(stamp(drafts)).steps[0]).toMatchObject({ text: 'partial', retries: 1 })
    const view = reduceEvents(stamp([...drafts, { type: 'assistant.delta', step: 1, text: 'whole' }]))
    expect(view.steps).toHaveLength(1)
    expect(view.steps[0]).toEqual({
      kind: 'model',
      seq: 1,
      ts: 1000,
      step: 1,
      text: 'whole',
      toolCalls: [],
      status: 'streaming',
      retries: 1,
    })
  })

  it('a turn that ends without its answer keeps the partial text, marked interrupted, above the error', () => {
    const ended = (end: EventDraft[]) =>
      reduceEvents(
        stamp([
          { type: 'user.message', text: 'go' },
          { type: 'assistant.delta', step: 1, text: 'Half an ans' },
          { type: 'model.retry', step: 1, attempt: 1, delayMs: 1, reason: 'HTTP 500' },
          ...end,
        ]),
      )
    const failed = ended([
      { type: 'error', code: 'server-error', message: 'The server kept failing.' },
      { type: 'session.finished', reason: 'error', steps: 1, usage, durationMs: 9 },
    ])
    expect(failed.steps.map((st) => [st.kind, 'status' in st ? st.status : undefined])).toEqual([
      ['user', undefined],
      ['model', 'interrupted'],
      ['error', undefined],
      ['finish', undefined],
    ])
    expect(failed.steps[1]).toMatchObject({ text: 'Half an ans', retries: 1 })
    // A process killed mid-stream leaves no end event: the next message ends the step.
    const killed = ended([{ type: 'user.message', text: 'again' }])
    expect(killed.steps[1]).toMatchObject({ kind: 'model', status: 'interrupted', text: 'Half an ans' })
  })

  it('a fork whose copied history ends after a tool result waits for the user; an undo leaves the status', () => {
    const history = events
      .slice(0, 6)
      .concat(
        stamp([
          { type: 'tool.finished', callId: 'c1', name: 'edit_file', ok: true, result: {}, durationMs: 1 },
        ]),
      )
      .map((e, i) => ({ ...e, seq: i + 1 }))
    expect(reduceEvents(history).status).toBe('thinking')
    const restore = { snapshotId: 2, savedSnapshotId: 3, toSeq: 7, paths: ['a'] }
    const next = (e: StepwiseEvent) => ({ ...e, seq: history.length + 1 })
    const forked = stamp([{ type: 'checkpoint.restored', kind: 'fork', ...restore }]).map(next)
    expect(reduceEvents([...history, ...forked]).status).toBe('idle')
    const undone = stamp([{ type: 'checkpoint.restored', kind: 'undo', ...restore }]).map(next)
    expect(reduceEvents([...history, ...undone]).status).toBe('thinking')
  })
})

describe('a compaction step', () => {
  it('carries its summary, and says whether the user asked for it and with which focus', () => {
    const steps = reduceEvents(
      stamp([
        { type: 'context.compacted', beforeTokens: 900, afterTokens: 500, summary: 'auto' },
        { type: 'context.compacted', beforeTokens: 500, afterTokens: 200, summary: 'asked', keptItems: 2 },
        {
          type: 'context.compacted',
          beforeTokens: 500,
          afterTokens: 200,
          summary: 's',
          keptItems: 0,
          focus: 'tests',
        },
      ]),
    ).steps
    expect(steps.map((s) => (s.kind === 'compaction' ? [s.summary, s.onRequest] : null))).toEqual([
      ['auto', undefined],
      ['asked', {}],
      ['s', { focus: 'tests' }],
    ])
  })
})

describe('an MCP tool step', () => {
  const name = 'mcp__everything__echo'
  const mcp = { server: 'everything', tool: 'echo', args: { message: 'hi' }, description: 'Echoes back' }
  const image = { kind: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' }
  const events = stamp([
    { type: 'tool.started', callId: 'm1', name, args: { message: 'hi' }, mutating: true },
    { type: 'approval.requested', callId: 'm1', tool: name, subject: { kind: 'mcp', ...mcp } },
    { type: 'approval.resolved', callId: 'm1', decision: 'accept', by: 'user' },
    {
      type: 'tool.finished',
      callId: 'm1',
      name,
      ok: true,
      result: { ok: true, text: 'Echo: hi' },
      durationMs: 4,
      attachments: [image],
    },
  ])

  it('keeps what the approval showed (server, tool, arguments, description) past the answer', () => {
    const waiting = reduceEvents(events.slice(0, 2)).steps[0]
    expect(waiting).toMatchObject({ kind: 'tool', status: 'waiting', mcp })
    const done = reduceEvents(events).steps[0]
    expect(done).toMatchObject({ status: 'ok', mcp, approval: { decision: 'accept', requestedSeq: 2 } })
  })

  it('keeps the images the tool returned, and only when there are some', () => {
    expect(reduceEvents(events).steps[0]).toMatchObject({ attachments: [image] })
    const plain = stamp([
      { type: 'tool.started', callId: 'r1', name: 'read_file', args: { path: 'a' }, mutating: false },
      {
        type: 'tool.finished',
        callId: 'r1',
        name: 'read_file',
        ok: true,
        result: { ok: true },
        durationMs: 1,
      },
      { type: 'tool.started', callId: 'm2', name, args: {}, mutating: true },
      {
        type: 'tool.finished',
        callId: 'm2',
        name,
        ok: true,
        result: { ok: true },
        durationMs: 1,
        attachments: [],
      },
    ])
    for (const step of reduceEvents(plain).steps) {
      expect(step).not.toHaveProperty('attachments')
      expect(step).not.toHaveProperty('mcp')
    }
  })
})

describe('an event kind this build does not know', () => {
  it('is passed over: the view keeps its steps and status, only the seq moves on', () => {
    const known = stamp([{ type: 'user.message', text: 'hi' }])
    const before = reduceEvents(known)
    const unknown = {
      type: 'turn.started',
      sessionId: 's1',
      seq: 2,
      ts: 2000,
      turn: 1,
    } as unknown as StepwiseEvent
    const after = reduceEvents([unknown], before)
    expect(after.steps).toEqual(before.steps)
    expect(after.status).toBe(before.status)
    expect(after.lastSeq).toBe(2)
  })
})

describe('model switches', () => {
  it('mark the timeline when the model or provider changes, not for a policy or the same model', () => {
    const view = reduceEvents(
      stamp([
        {
          type: 'session.started',
          protocolVersion: 1,
          repo: '/p',
          provider: 'ollama',
          model: 'coder:1b',
          approvalPolicy: 'ask',
          maxSteps: 50,
        },
        { type: 'session.configured', approvalPolicy: 'auto-edit' },
        { type: 'session.configured', provider: 'ollama', model: 'coder:1b' },
        {
          type: 'session.configured',
          provider: 'openai-chat',
          model: 'gpt-local',
          baseUrl: 'http://127.0.0.1:1234/v1',
        },
        { type: 'session.configured', model: 'gpt-other' },
      ]),
    )
    expect(view.steps).toEqual([
      {
        kind: 'switch',
        seq: 4,
        ts: 1003,
        provider: 'openai-chat',
        model: 'gpt-local',
        baseUrl: 'http://127.0.0.1:1234/v1',
        from: { provider: 'ollama', model: 'coder:1b' },
      },
      {
        kind: 'switch',
        seq: 5,
        ts: 1004,
        provider: 'openai-chat',
        model: 'gpt-other',
        from: { provider: 'openai-chat', model: 'gpt-local' },
      },
    ])
    expect([view.provider, view.model, view.approvalPolicy]).toEqual([
      'openai-chat',
      'gpt-other',
      'auto-edit',
    ])
  })
})

// A command's checkpoint carries the net record of ignored folders since the session started; its
// step shows what that command changed there anew (the event-stream case: code appended to an
// installed dependency shows on the step that did it, not on every later one).
describe('ignored folders on a checkpoint step', () => {
  it('names what each command changed there anew, and nothing for a command that changed nothing', () => {
    const pad = {
      path: 'node_modules/left-pad/index.js',
      status: 'modified' as const,
      size: 40,
      sha256: 'a',
      stored: true as const,
    }
    const view = reduceEvents(
      stamp([
        {
          type: 'session.started',
          protocolVersion: 1,
          repo: '/p',
          provider: 'ollama',
          model: 'm',
          approvalPolicy: 'ask',
          maxSteps: 50,
        },
        { type: 'checkpoint.created', snapshotId: 1, callId: 'c1', paths: [], ignored: [pad] },
        { type: 'checkpoint.created', snapshotId: 2, callId: 'c2', paths: ['a.txt'], ignored: [pad] },
        {
          type: 'checkpoint.created',
          snapshotId: 3,
          callId: 'c3',
          paths: [],
          ignored: [
            { ...pad, size: 41, sha256: 'b' },
            { path: 'dist/x.js', status: 'added', size: 1 },
          ],
        },
      ]),
    )
    const checkpoints = view.steps.filter((s) => s.kind === 'checkpoint')
    expect(checkpoints.map((c) => c.kind === 'checkpoint' && c.ignored?.map((i) => i.path))).toEqual([
      ['node_modules/left-pad/index.js'],
      undefined,
      ['node_modules/left-pad/index.js', 'dist/x.js'],
    ])
    expect(view.ignoredRecord).toHaveLength(2)
  })
})
