import type { EventDraft, StepwiseEvent } from '../../../shared/protocol'
import { reduceEvents, type TimelineStep } from '../../../shared/reducer'

/*
 * A session with one step of every kind, built by the real reducer from real events,
 * for the timeline's unit tests.
 */

function stamp(drafts: EventDraft[]): StepwiseEvent[] {
  return drafts.map((d, i) => ({ ...d, sessionId: 's1', seq: i + 1, ts: 1000 + i }) as StepwiseEvent)
}

const usage = { inputTokens: 12_345, outputTokens: 678 }

export const SESSION_EVENTS = stamp([
  {
    type: 'session.started',
    protocolVersion: 1,
    repo: '/p',
    provider: 'ollama',
    model: 'm',
    approvalPolicy: 'ask',
    maxSteps: 50,
  },
  { type: 'user.message', text: 'Fix the login bug\n\nIt fails on empty passwords.\nThanks' },
  { type: 'assistant.delta', step: 1, text: 'Reading the form' },
  {
    type: 'assistant.message',
    step: 1,
    text: 'Reading the form',
    toolCalls: [
      { id: 'c1', name: 'read_file', arguments: '{"path":"src/login.ts"}' },
      { id: 'c2', name: 'edit_file', arguments: '{"path":"src/login.ts"}' },
    ],
    usage,
    durationMs: 1234,
    provider: 'ollama',
    model: 'm',
  },
  { type: 'tool.started', callId: 'c1', name: 'read_file', args: { path: 'src/login.ts' }, mutating: false },
  { type: 'tool.finished', callId: 'c1', name: 'read_file', ok: true, result: { lines: 3 }, durationMs: 12 },
  {
    type: 'tool.started',
    callId: 'c2',
    name: 'edit_file',
    args: { path: 'src/login.ts', old_string: 'a', new_string: 'b' },
    mutating: true,
  },
  {
    type: 'approval.requested',
    callId: 'c2',
    tool: 'edit_file',
    subject: {
      kind: 'file',
      path: 'src/login.ts',
      change: 'modify',
      diff: '-a\n+b\n',
      before: 'a\n',
      after: 'b\n',
    },
  },
  { type: 'approval.resolved', callId: 'c2', decision: 'accept', by: 'user' },
  { type: 'tool.finished', callId: 'c2', name: 'edit_file', ok: true, result: {}, durationMs: 3 },
  { type: 'checkpoint.created', snapshotId: 7, callId: 'c2', paths: ['src/login.ts'] },
  { type: 'tool.started', callId: 'c3', name: 'run_command', args: { command: 'npm test' }, mutating: false },
  { type: 'tool.output', callId: 'c3', stream: 'stdout', text: 'FAIL login\n' },
  {
    type: 'tool.finished',
    callId: 'c3',
    name: 'run_command',
    ok: false,
    result: { code: 1 },
    durationMs: 2100,
  },
  { type: 'context.compacted', beforeTokens: 12_300, afterTokens: 7_100 },
  {
    type: 'error',
    message: 'The model server went away',
    code: 'model-unreachable',
    hint: 'Is Ollama running?',
  },
  {
    type: 'review.finding',
    callId: 'c4',
    finding: {
      file: 'src/login.ts',
      line: 4,
      severity: 'high',
      category: 'bug',
      message: 'Null check\nmore',
    },
  },
  {
    type: 'checkpoint.restored',
    kind: 'undo',
    snapshotId: 7,
    savedSnapshotId: 8,
    paths: ['src/login.ts', 'src/a.ts'],
  },
  { type: 'session.forked', childSessionId: 'abcdef0123456789', atSeq: 5 },
  { type: 'verify.finished', round: 1, maxRounds: 3, passed: false, failures: ['login.test.ts: 1 failed'] },
])

/** user, model, tool ×3, checkpoint, compaction, error, finding, restore, fork, verify. */
export function sessionSteps(): TimelineStep[] {
  return reduceEvents(SESSION_EVENTS).steps
}
