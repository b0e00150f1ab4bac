import { describe, expect, it } from 'vitest'
import { stepwiseEventSchema, type StepwiseEvent } from './protocol'
import { reduceEvents } from './reducer'
import { nextStepOf, seqOfStep, stepNumberAfter, stepNumberAt, stepsOf, StepNumberError } from './steps'

// A session as the core stores it: a message, a streamed reply with a call, the call
// through its approval and output, the change it made, the final answer, the end.
const TYPES: Array<[StepwiseEvent['type'], Record<string, unknown>]> = [
  [
    'session.started',
    { protocolVersion: 1, repo: '/r', provider: 'ollama', model: 'm', approvalPolicy: 'ask', maxSteps: 10 },
  ],
  ['turn.started', { turn: 1, kind: 'message' }],
  ['user.message', { text: 'fix it' }],
  ['assistant.delta', { step: 1, text: 'I' }],
  ['assistant.delta', { step: 1, text: ' will' }],
  [
    'assistant.message',
    {
      step: 1,
      text: 'I will',
      toolCalls: [{ id: 'c1', name: 'run_command', arguments: '{}' }],
      durationMs: 5,
      usage: { inputTokens: 1, outputTokens: 1 },
      provider: 'ollama',
      model: 'm',
    },
  ],
  ['tool.started', { callId: 'c1', name: 'run_command', args: {}, mutating: true }],
  [
    'approval.requested',
    {
      callId: 'c1',
      tool: 'run_command',
      subject: { kind: 'command', command: 'make', cwd: '.', verdict: 'ask' },
    },
  ],
  ['approval.resolved', { callId: 'c1', decision: 'accept', by: 'user' }],
  ['tool.finished', { callId: 'c1', name: 'run_command', ok: true, result: { ok: true }, durationMs: 3 }],
  ['checkpoint.created', { snapshotId: 2, paths: ['a.txt'], callId: 'c1' }],
  [
    'assistant.message',
    {
      step: 2,
      text: 'Done.',
      toolCalls: [],
      durationMs: 5,
      usage: { inputTokens: 1, outputTokens: 1 },
      provider: 'ollama',
      model: 'm',
    },
  ],
  [
    'session.finished',
    { reason: 'done', steps: 2, usage: { inputTokens: 2, outputTokens: 2 }, durationMs: 120 },
  ],
  ['turn.finished', { turn: 1, reason: 'done', durationMs: 120 }],
]
// Parsed by the protocol's schema, so the fixture is a log the core could have written.
const events: StepwiseEvent[] = TYPES.map(([type, rest], i) =>
  stepwiseEventSchema.parse({ sessionId: 's', seq: i + 1, ts: 1000 + i * 10, type, ...rest }),
)

describe('steps', () => {
  it('numbers what a person sees: messages, the tool call whole, the change, the end', () => {
    expect(stepsOf(events)).toEqual([
      { n: 1, kind: 'message', seq: 3, count: 3, ts: 1020 },
      { n: 2, kind: 'message', seq: 6, count: 6, ts: 1050 },
      { n: 3, kind: 'tool', seq: 10, count: 10, ts: 1090 },
      { n: 4, kind: 'change', seq: 11, count: 11, ts: 1100 },
      { n: 5, kind: 'message', seq: 12, count: 12, ts: 1110 },
      { n: 6, kind: 'other', seq: 13, count: 13, ts: 1120 },
    ])
  })

  it('gives a live session its open last step, so a replay reaches everything stored', () => {
    const live = events.slice(0, 8) // the call waits for approval
    expect(stepsOf(live).at(-1)).toEqual({ n: 3, kind: 'tool', seq: 8, count: 8, ts: 1070 })
    expect(stepsOf(events.slice(0, 4)).at(-1)).toEqual({ n: 2, kind: 'message', seq: 4, count: 4, ts: 1030 })
  })

  it('maps step numbers to seqs and back, and refuses a number out of range with the range', () => {
    const steps = stepsOf(events)
    expect(seqOfStep(events, 0)).toBe(1)
    expect(seqOfStep(events, 3)).toBe(10)
    expect(() => seqOfStep(events, 7)).toThrow(StepNumberError)
    expect(() => seqOfStep(events, 7)).toThrow(
      'step 7 is out of range: the session has 6 steps (0 is its start).',
    )
    expect(() => seqOfStep(events, -1)).toThrow(/not a step number/)
    expect(stepNumberAt(steps, 8)).toBe(3) // the approval belongs to the tool call
    expect(stepNumberAt(steps, 10)).toBe(3)
    expect(stepNumberAfter(steps, 8)).toBe(2)
    expect(stepNumberAfter(steps, 14)).toBe(6)
  })

  it('jumps to the next and previous step of a kind', () => {
    const steps = stepsOf(events)
    expect(nextStepOf(steps, 0, 'change', 1)).toBe(4)
    expect(nextStepOf(steps, 4, 'change', 1)).toBeUndefined()
    expect(nextStepOf(steps, 5, 'tool', -1)).toBe(3)
    expect(nextStepOf(steps, 2, 'message', 1)).toBe(5)
    expect(nextStepOf(steps, 2, 'message', -1)).toBe(1)
  })

  it('the state at a step is the reducer over exactly its events (the replay engine is unchanged)', () => {
    // Seqs with gaps, as in a store shared by sessions: `count` and `seq` must still agree.
    const gappy = events.map((e, i) => ({ ...e, seq: 3 * i + 7 }))
    const steps = stepsOf(gappy)
    expect(steps.map((s) => s.seq)).toEqual([13, 22, 34, 37, 40, 43])
    for (const s of steps)
      expect(reduceEvents(gappy.slice(0, s.count))).toEqual(reduceEvents(gappy.filter((e) => e.seq <= s.seq)))
  })
})
