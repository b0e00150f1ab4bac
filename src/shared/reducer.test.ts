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
      change: { path: 'a', kind: 'modify', diff: '-x\n+y\n', before: 'x\n', after: 'y\n' },
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

  it('a retry clears the text streamed by the failed attempt', () => {
    const view = reduceEvents(
      stamp([
        { type: 'assistant.delta', step: 1, text: 'partial' },
        { type: 'model.retry', step: 1, attempt: 1, delayMs: 500, reason: 'socket hang up' },
        { type: 'assistant.delta', step: 1, text: 'whole' },
      ]),
    )
    expect(view.steps).toHaveLength(1)
    expect(view.steps[0]).toMatchObject({ kind: 'model', text: 'whole', retries: 1 })
  })

  it('a fork whose copied history ends after a tool result waits for the user; an undo leaves the status', () => {
    const history = events
      .slice(0, 6)
      .concat(
        stamp([
          { type: 'tool.finished', callId: 'c1', name: 'edit_file', ok: true, result: {}, durationMs: 1 },
        ]),
      )
    expect(reduceEvents(history).status).toBe('thinking')
    const restore = { snapshotId: 2, savedSnapshotId: 3, toSeq: 7, paths: ['a'] }
    const forked = stamp([{ type: 'checkpoint.restored', kind: 'fork', ...restore }])
    expect(reduceEvents([...history, ...forked]).status).toBe('idle')
    const undone = stamp([{ type: 'checkpoint.restored', kind: 'undo', ...restore }])
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
