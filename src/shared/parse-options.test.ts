import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { PER_STEP_PARSE } from './parse-options'
import { stepwiseEventSchema } from './protocol'

// The per-step checks parse without zod's compiled fast path (parse-options.ts). The stored log
// and what replay reads back must not depend on that: each case is parsed both ways and must give
// the same verdict, the same value and the same issues. The events are a real CLI session's
// (`stepwise edit`, a scripted model, one read_file call), with the machine's paths replaced.

const at = { sessionId: 's1', seq: 0, ts: 1_700_000_000_000 }

const recorded: Record<string, unknown>[] = [
  {
    type: 'session.started',
    protocolVersion: 1,
    repo: '/p',
    provider: 'openai-chat',
    model: 'm1',
    baseUrl: 'http://127.0.0.1:43819/v1',
    approvalPolicy: 'auto-edit',
    maxSteps: 50,
    baselineSnapshotId: 1,
  },
  { type: 'turn.started', turn: 1, kind: 'message' },
  { type: 'user.message', text: 'look around' },
  {
    type: 'assistant.message',
    step: 1,
    text: '',
    toolCalls: [{ id: 'read_0', name: 'read_file', arguments: '{"path":"notes.txt"}' }],
    usage: { inputTokens: 10, outputTokens: 5 },
    durationMs: 54,
    provider: 'openai-chat',
    model: 'm1',
    context: { usedTokens: 4226, windowTokens: 32768, promptSource: 'estimated' },
  },
  { type: 'tool.started', callId: 'read_0', name: 'read_file', args: { path: 'notes.txt' }, mutating: false },
  {
    type: 'tool.finished',
    callId: 'read_0',
    name: 'read_file',
    ok: true,
    result: {
      ok: true,
      path: 'notes.txt',
      bytes: 12,
      total_lines: 2,
      start_line: 1,
      end_line: 2,
      content: '1\thello\n2\thello',
    },
    durationMs: 3,
  },
  { type: 'assistant.delta', step: 9, text: 'Do' },
  {
    type: 'session.finished',
    reason: 'done',
    steps: 9,
    usage: { inputTokens: 90, outputTokens: 45 },
    durationMs: 204,
  },
  { type: 'turn.finished', turn: 1, reason: 'done', durationMs: 212 },
  { type: 'error', code: 'checkpoint-failed', message: 'The change was applied but its checkpoint failed.' },
]

/** What a buggy core could hand the store: each must be refused the same way both ways. */
const malformed: Record<string, unknown>[] = [
  { type: 'user.message' },
  { type: 'user.message', text: 42 },
  { type: 'tool.finished', callId: 'c1', name: 'read_file', ok: 'yes', result: {}, durationMs: 1 },
  { type: 'turn.started', turn: -1, kind: 'message' },
  { type: 'error', code: 'no-such-code', message: 'm' },
  { type: 'user.whisper', text: 'hi' },
  { type: 'assistant.message', step: 1, text: '', toolCalls: [{ id: 1 }] },
]

function bothWays(schema: z.ZodType, value: unknown) {
  const compiled = schema.safeParse(value)
  const interpreted = schema.safeParse(value, PER_STEP_PARSE)
  const issues = (r: typeof compiled) =>
    r.success ? [] : r.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }))
  return { compiled, interpreted, issues }
}

describe('the per-step parse options', () => {
  it('turn zod’s compiled fast path off', () => {
    expect(PER_STEP_PARSE.jitless).toBe(true)
  })

  it.each(recorded.map((e) => [e.type, e] as const))('keep a recorded %s event as it is', (_type, draft) => {
    const { compiled, interpreted } = bothWays(stepwiseEventSchema, { ...at, ...draft })
    expect(interpreted.success).toBe(true)
    expect(interpreted.data).toEqual(compiled.data)
  })

  it.each(malformed.map((e, i) => [i, e] as const))(
    'refuse malformed event %i with the same issues',
    (_i, draft) => {
      const { compiled, interpreted, issues } = bothWays(stepwiseEventSchema, { ...at, ...draft })
      expect(interpreted.success).toBe(false)
      expect(compiled.success).toBe(false)
      expect(issues(interpreted)).toEqual(issues(compiled))
    },
  )
})
