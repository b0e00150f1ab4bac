import type { ApprovalSubject, StepwiseEvent } from '../../../../shared/protocol'

function fileSubject(path: string): ApprovalSubject {
  return { kind: 'file', path, change: 'modify', diff: '', before: '', after: '' }
}

/** Event fixtures for the overview's tests. */

export type Body = StepwiseEvent extends infer E
  ? E extends StepwiseEvent
    ? Omit<E, 'sessionId' | 'seq' | 'ts'>
    : never
  : never

/** A session from event bodies with their times: seq in order, sessionId s1. */
export function session(...parts: Array<[number, Body]>): StepwiseEvent[] {
  return parts.map(([ts, body], seq) => ({ ...body, sessionId: 's1', seq, ts }) as StepwiseEvent)
}

export const started: Body = {
  type: 'session.started',
  protocolVersion: 1,
  repo: '/r',
  provider: 'ollama',
  model: 'coder:1b',
  approvalPolicy: 'ask',
  maxSteps: 50,
}
export const usage = { inputTokens: 1200, outputTokens: 80 }
export const message = (step: number, calls: string[], durationMs = 400): Body => ({
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
    [1550, { type: 'approval.requested', callId: 'c2', tool: 'edit_file', subject: fileSubject('a.ts') }],
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
    [5220, { type: 'approval.requested', callId: 'c3', tool: 'write_file', subject: fileSubject('c.ts') }],
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
