import { describe, expect, it } from 'vitest'
import { reduceEvents } from '../../../../shared/reducer'
import { barName, barText, spanCost } from './labels'
import { message, richSession, session, started, usage } from './fixtures'
import { FIRST_TOOL_LANE, MODEL_LANE, spansOf, TURN_LANE, type Span } from './spans'

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

  it('names an MCP tool by its server and tool, as the rows do', () => {
    const events = session(
      [0, started],
      [100, message(1, ['m1'])],
      [200, { type: 'tool.started', callId: 'm1', name: 'mcp__everything__echo', args: {}, mutating: false }],
    )
    const bar = spansOf(events).spans.find((s) => s.kind === 'tool')
    expect(bar?.name).toBe('everything · echo')
  })

  it('times a streamed model call from its first delta, an unstreamed one from its duration after the previous event', () => {
    const model = spansOf(richSession())
    const [first, second] = model.spans.filter((s) => s.kind === 'model')
    expect([first.start, first.end]).toEqual([1100, 1500])
    expect([second.start, second.end]).toEqual([Math.max(4610, 5200 - 500), 5200])
    expect(first.inputTokens).toBe(1200)
    expect(model.maxTokens).toBe(1280)
  })

  it("counts the wait for a streamed call's first token in its bar", () => {
    const events = session(
      [0, started],
      [1000, { type: 'user.message', text: 'go' }],
      [2000, { type: 'assistant.delta', step: 1, text: 'late' }],
      [2100, message(1, [], 1000)],
    )
    const call = spansOf(events).spans[1]
    // Asked at 1100 (2100 − 1000 ms), not when its first token came (2000), nor before the message (1000).
    expect([call.start, call.end]).toEqual([1100, 2100])
    const slow = session(
      [0, started],
      [1000, { type: 'user.message', text: 'go' }],
      [2000, { type: 'assistant.delta', step: 1, text: 'late' }],
      [2100, message(1, [], 5000)],
    )
    expect(spansOf(slow).spans[1].start).toBe(1000)
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
      [3, { type: 'session.forked', childSessionId: 's2', atSeq: 1, atStep: 1 }],
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
    expect(name).toContain('coder:1b · reply 1')
    expect(name).toContain('Model call · done · 400 ms')
    expect(name).toContain('1.2k tokens in · 80 out')
    expect(name).toContain('$0.002 at list prices')
  })
})
