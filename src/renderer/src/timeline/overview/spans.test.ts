import { describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../../../shared/protocol'
import { reduceEvents } from '../../../../shared/reducer'
import { barName, barText, spanCost } from './labels'
import { FIRST_TOOL_LANE, MODEL_LANE, spansOf, TURN_LANE, type Span } from './spans'

type Body = StepwiseEvent extends infer E
  ? E extends StepwiseEvent
    ? Omit<E, 'sessionId' | 'seq' | 'ts'>
    : never
  : never

/** A session from event bodies with their times: seq in order, sessionId s1. */
export function session(...parts: Array<[number, Body]>): StepwiseEvent[] {
  return parts.map(([ts, body], seq) => ({ ...body, sessionId: 's1', seq, ts }) as StepwiseEvent)
}

const started: Body = {
  type: 'session.started',
  protocolVersion: 1,
  repo: '/r',
  provider: 'ollama',
  model: 'coder:1b',
  approvalPolicy: 'ask',
  maxSteps: 50,
}
const usage = { inputTokens: 1200, outputTokens: 80 }
const message = (step: number, calls: string[], durationMs = 400): Body => ({
  type: 'assistant.message',
  step,
  text: 'ok',
  toolCalls: calls.map((id) => ({ id, name: 'read_file', arguments: '{}' })),
  usage,
  durationMs,
  provider: 'ollama',
  model: 'coder:1b',
})

/** One turn: a streamed model call, a read, an edit that waited for approval, a rejected one, a command that failed. */
export function richSession(): StepwiseEvent[] {
  return session(
    [1000, started],
    [1000, { type: 'user.message', text: 'Fix the bug\nin a.ts' }],
    [1100, { type: 'assistant.delta', step: 1, text: 'Look' }],
    [1500, message(1, ['c1', 'c2'])],
    [
      1510,
      { type: 'tool.started', callId: 'c1', name: 'read_file', args: { path: 'a.ts' }, mutating: false },
    ],
    [
      1530,
      {
        type: 'tool.finished',
        callId: 'c1',
        name: 'read_file',
        ok: true,
        result: { ok: true },
        durationMs: 20,
      },
    ],
    [1540, { type: 'tool.started', callId: 'c2', name: 'edit_file', args: { path: 'a.ts' }, mutating: true }],
    [1550, { type: 'approval.requested', callId: 'c2', tool: 'edit_file' }],
    [4550, { type: 'approval.resolved', callId: 'c2', decision: 'accept', by: 'user' }],
    [
      4600,
      {
        type: 'tool.finished',
        callId: 'c2',
        name: 'edit_file',
        ok: true,
        result: { ok: true },
        durationMs: 50,
      },
    ],
    [4610, { type: 'checkpoint.created', snapshotId: 3, callId: 'c2', paths: ['a.ts', 'b.ts'] }],
    [5200, message(2, ['c3', 'c4'], 500)],
    [
      5210,
      { type: 'tool.started', callId: 'c3', name: 'write_file', args: { path: 'c.ts' }, mutating: true },
    ],
    [5220, { type: 'approval.requested', callId: 'c3', tool: 'write_file' }],
    [6220, { type: 'approval.resolved', callId: 'c3', decision: 'reject', by: 'user', reason: 'no' }],
    [
      6230,
      {
        type: 'tool.finished',
        callId: 'c3',
        name: 'write_file',
        ok: false,
        result: { ok: false },
        durationMs: 1,
      },
    ],
    [
      6240,
      {
        type: 'tool.started',
        callId: 'c4',
        name: 'run_command',
        args: { command: 'npm test' },
        mutating: true,
      },
    ],
    [
      7240,
      {
        type: 'tool.finished',
        callId: 'c4',
        name: 'run_command',
        ok: false,
        result: { ok: false },
        durationMs: 1000,
      },
    ],
    [7300, { type: 'context.compacted', beforeTokens: 9000, afterTokens: 2000 }],
    [7400, { type: 'error', message: 'model went away', code: 'model-unreachable' }],
    [7410, { type: 'session.finished', reason: 'error', steps: 2, usage, durationMs: 6410 }],
  )
}

describe('spansOf', () => {
  it('gives each model call, tool call, command and compaction a bar with the seq of its timeline step', () => {
    const events = richSession()
    const model = spansOf(events)
    const view = reduceEvents(events)
    const barSeqs = model.spans.map((s) => s.seq)
    const markSeqs = model.marks.map((m) => m.seq)
    // Every step of the reducer is a bar or a mark, under the same seq.
    for (const step of view.steps) expect([...barSeqs, ...markSeqs]).toContain(step.seq)
    expect(model.spans.map((s) => [s.kind, s.status])).toEqual([
      ['turn', 'error'],
      ['model', 'ok'],
      ['tool', 'ok'],
      ['tool', 'ok'],
      ['model', 'ok'],
      ['tool', 'rejected'],
      ['command', 'error'],
      ['compaction', 'ok'],
    ])
    expect(model.marks.map((m) => m.kind)).toEqual(['checkpoint', 'error', 'finish'])
  })

  it('times a streamed model call from its first delta, an unstreamed one from its duration after the previous event', () => {
    const model = spansOf(richSession())
    const [first, second] = model.spans.filter((s) => s.kind === 'model')
    expect([first.start, first.end]).toEqual([1100, 1500])
    expect([second.start, second.end]).toEqual([Math.max(4610, 5200 - 500), 5200])
    expect(first.inputTokens).toBe(1200)
    expect(model.maxTokens).toBe(1280)
  })

  it('keeps approval waits inside their tool call, with the decision', () => {
    const model = spansOf(richSession())
    const edit = model.spans.find((s) => s.name.startsWith('edit_file')) as Span
    expect(edit.waits).toEqual([{ start: 1550, end: 4550, decision: 'accept' }])
    expect(edit.files).toEqual(['a.ts', 'b.ts'])
    expect(edit.writes).toBe(true)
    const text = barText(edit, 0)
    expect(text.lines).toContain('waited 3.0 s for approval (accept)')
    expect(text.lines).toContain('changed: a.ts, b.ts')
  })

  it('puts turns, model calls and tools in their lanes; parallel tool calls stack', () => {
    const events = session(
      [0, started],
      [0, { type: 'user.message', text: 'go' }],
      [10, message(1, ['a', 'b'])],
      [11, { type: 'tool.started', callId: 'a', name: 'read_file', args: { path: 'x' }, mutating: false }],
      [12, { type: 'tool.started', callId: 'b', name: 'read_file', args: { path: 'y' }, mutating: false }],
      [20, { type: 'tool.finished', callId: 'a', name: 'read_file', ok: true, result: {}, durationMs: 9 }],
      [21, { type: 'tool.finished', callId: 'b', name: 'read_file', ok: true, result: {}, durationMs: 9 }],
      [22, { type: 'tool.started', callId: 'c', name: 'read_file', args: { path: 'z' }, mutating: false }],
    )
    const model = spansOf(events)
    expect(model.spans.map((s) => s.lane)).toEqual([
      TURN_LANE,
      MODEL_LANE,
      FIRST_TOOL_LANE,
      FIRST_TOOL_LANE + 1,
      FIRST_TOOL_LANE,
    ])
    // The last call and the turn still run: their ends are open and the model is live.
    expect(model.spans[4].end).toBeNull()
    expect(model.live).toBe(true)
    for (const lane of model.lanes)
      expect(lane.map((s) => s.start)).toEqual([...lane.map((s) => s.start)].sort((a, b) => a - b))
  })

  it('grows with appended events and starts over when the events are another session', () => {
    const events = richSession()
    const partial = spansOf(events.slice(0, 8))
    const edit = partial.spans.find((s) => s.name.startsWith('edit_file')) as Span
    expect(edit.status).toBe('waiting')
    expect(edit.waits?.[0].end).toBeNull()
    const grown = spansOf(events, partial)
    expect(grown).toBe(partial)
    expect(grown.spans).toHaveLength(8)
    expect(spansOf(events, grown).version).toBe(grown.version)
    // A different array that is not an append (another session): a new model.
    const other = spansOf(
      events.slice(0, 3).map((e) => ({ ...e })),
      grown,
    )
    expect(other).not.toBe(grown)
    expect(other.spans).toHaveLength(2)
  })

  it('ends what was still running when the run stops, with its status', () => {
    const events = session(
      [0, started],
      [0, { type: 'user.message', text: 'go' }],
      [5, { type: 'assistant.delta', step: 1, text: 'hm' }],
      [50, { type: 'session.finished', reason: 'interrupted', steps: 0, usage, durationMs: 50 }],
    )
    const model = spansOf(events)
    expect(model.spans.map((s) => [s.kind, s.status, s.end])).toEqual([
      ['turn', 'rejected', 50],
      ['model', 'rejected', 50],
    ])
    expect(model.live).toBe(false)
  })

  it('marks checkpoints, restores and forks', () => {
    const events = session(
      [0, started],
      [1, { type: 'checkpoint.created', snapshotId: 1, paths: ['a'] }],
      [
        2,
        {
          type: 'checkpoint.restored',
          kind: 'rewind',
          snapshotId: 1,
          savedSnapshotId: 2,
          paths: ['a'],
          toSeq: 1,
        },
      ],
      [3, { type: 'session.forked', childSessionId: 's2', atSeq: 1 }],
    )
    const model = spansOf(events)
    expect(model.marks.map((m) => [m.kind, m.label])).toEqual([
      ['checkpoint', 'checkpoint · 1 file'],
      ['restore', 'rewind · 1 file restored'],
      ['fork', 'forked at step 1'],
    ])
    expect(model.items.map((i) => i.seq)).toEqual([1, 2, 3])
  })

  it('names a bar for screen readers and prices it when the model has a price', () => {
    const model = spansOf(richSession())
    const call = model.spans[1]
    const price = () => ({ inputPerMTok: 1, outputPerMTok: 10 })
    expect(spanCost(call, price)).toBeCloseTo((1200 * 1 + 80 * 10) / 1e6)
    expect(spanCost(call, () => null)).toBeNull()
    const name = barName(call, 0, price)
    expect(name).toContain('coder:1b · step 1')
    expect(name).toContain('Model call · done · 400 ms')
    expect(name).toContain('1.2k tokens in · 80 out')
    expect(name).toContain('$0.002 at list prices')
  })
})
