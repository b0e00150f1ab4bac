/**
 * A stored session for the trace tests: a turn with a read, an edit that waits for
 * approval and is rejected, and an answer; then a turn whose model call fails.
 * SECRET stands for file content and PROMPT for the user's words: neither may leave
 * without the content opt-in.
 */
import type { EventDraft, StepwiseEvent } from '../src/shared/protocol'

export const SID = 'sess-1'
export const SECRET = 'const token = "file-body-7f3a"'
export const PROMPT = 'Rename the token constant please'
export const T0 = 1_700_000_000_000

/** Events as the store numbers them: seq in order, `ts` given per event. */
function session(drafts: [number, EventDraft][]): StepwiseEvent[] {
  return drafts.map(([dt, d], seq) => ({ ...d, sessionId: SID, seq, ts: T0 + dt }) as StepwiseEvent)
}

const usage = (i: number, o: number) => ({ inputTokens: i, outputTokens: o })

/** A turn with a read, an edit that waits for approval, and a final answer; then a second turn that fails. */
export const EVENTS = session([
  [
    0,
    {
      type: 'session.started',
      protocolVersion: 1,
      repo: '/r',
      provider: 'openai-chat',
      model: 'qwen',
      baseUrl: 'http://127.0.0.1:8080/v1',
      approvalPolicy: 'ask',
      maxSteps: 10,
      baselineSnapshotId: 1,
    },
  ],
  [5, { type: 'user.message', text: PROMPT }],
  [30, { type: 'assistant.delta', step: 1, text: 'Reading' }],
  [
    100,
    {
      type: 'assistant.message',
      step: 1,
      text: 'Reading',
      toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' }],
      usage: usage(120, 10),
      durationMs: 90,
      provider: 'openai-chat',
      model: 'qwen',
    },
  ],
  [101, { type: 'tool.started', callId: 'c1', name: 'read_file', args: { path: 'a.ts' }, mutating: false }],
  [
    110,
    {
      type: 'tool.finished',
      callId: 'c1',
      name: 'read_file',
      ok: true,
      result: { ok: true, content: SECRET },
      durationMs: 9,
    },
  ],
  [
    300,
    {
      type: 'assistant.message',
      step: 2,
      text: '',
      toolCalls: [{ id: 'c2', name: 'edit_file', arguments: '{}' }],
      usage: usage(200, 20),
      durationMs: 185,
      provider: 'openai-chat',
      model: 'qwen',
    },
  ],
  [
    301,
    {
      type: 'tool.started',
      callId: 'c2',
      name: 'edit_file',
      args: { path: 'a.ts', old_string: SECRET, new_string: 'x' },
      mutating: true,
    },
  ],
  [
    305,
    {
      type: 'approval.requested',
      callId: 'c2',
      tool: 'edit_file',
      subject: {
        kind: 'file',
        path: 'a.ts',
        change: 'modify',
        diff: `-${SECRET}\n+x`,
        before: SECRET,
        after: 'x',
      },
    },
  ],
  [
    2305,
    { type: 'approval.resolved', callId: 'c2', decision: 'reject', by: 'user', reason: 'not like that' },
  ],
  [
    2306,
    {
      type: 'tool.finished',
      callId: 'c2',
      name: 'edit_file',
      ok: false,
      result: { ok: false, error: 'Rejected by the user: not like that' },
      durationMs: 2005,
    },
  ],
  [2310, { type: 'checkpoint.created', snapshotId: 2, paths: ['a.ts'] }],
  [
    2500,
    {
      type: 'assistant.message',
      step: 3,
      text: 'Left it as is.',
      toolCalls: [],
      usage: usage(260, 8),
      durationMs: 180,
      provider: 'openai-chat',
      model: 'qwen',
    },
  ],
  [2501, { type: 'session.finished', reason: 'done', steps: 3, usage: usage(580, 38), durationMs: 2496 }],
  [5000, { type: 'user.message', text: 'Try again' }],
  [5100, { type: 'model.retry', step: 4, attempt: 1, delayMs: 50, reason: '503' }],
  [6000, { type: 'error', code: 'model-unreachable', message: 'The model server did not answer.' }],
  [
    6001,
    {
      type: 'session.finished',
      reason: 'error',
      steps: 1,
      usage: usage(0, 0),
      durationMs: 1001,
      message: 'The model server did not answer.',
    },
  ],
])
