import { describe, expect, it } from 'vitest'
import {
  commandSchemas,
  ERROR_CODES,
  hostNoticeSchema,
  parseClientRequest,
  PROTOCOL_VERSION,
  SESSION_STATUSES,
  stepwiseEventSchema,
  type ClientRequest,
  type ServerMessage,
  type StepwiseEvent,
} from './index'

// What crosses the boundary typed: the events `session/events` returns, a session's status, an error's
// code. Each case would pass if the schema were loosened back to z.unknown() / z.string().

const at = { sessionId: 's1', ts: 1_700_000_000_000 }

/** A short session as the core records it (session.ts, approve.ts, tool-runner.ts, turn.ts). */
const history: StepwiseEvent[] = [
  {
    ...at,
    seq: 0,
    type: 'session.started',
    protocolVersion: PROTOCOL_VERSION,
    repo: '/p',
    provider: 'ollama',
    model: 'qwen',
    approvalPolicy: 'ask',
    maxSteps: 50,
  },
  { ...at, seq: 1, type: 'turn.started', turn: 1, kind: 'message' },
  { ...at, seq: 2, type: 'user.message', text: 'run the tests' },
  {
    ...at,
    seq: 3,
    type: 'tool.started',
    callId: 'c1',
    name: 'run_command',
    args: { command: 'npm test' },
    mutating: true,
  },
  {
    ...at,
    seq: 4,
    type: 'approval.resolved',
    callId: 'c1',
    decision: 'accept',
    by: 'policy',
    rule: {
      id: 3,
      scope: 'project',
      project: '/p',
      pattern: { kind: 'command', words: ['npm', 'test'], exact: false },
      createdAt: 1,
    },
  },
  {
    ...at,
    seq: 5,
    type: 'tool.finished',
    callId: 'c1',
    name: 'run_command',
    ok: false,
    result: { ok: false, error: 'exit 1' },
    durationMs: 12,
  },
  { ...at, seq: 6, type: 'error', code: 'checkpoint-failed', message: 'The change was applied but…' },
]

const eventsOutput = commandSchemas['session/events'].output
const listOutput = commandSchemas['session/list'].output

function firstIssue(result: {
  success: boolean
  error?: { issues: { path: PropertyKey[]; message: string }[] }
}) {
  expect(result.success).toBe(false)
  const issue = result.error?.issues[0]
  return { path: issue?.path.join('.'), message: issue?.message ?? '' }
}

describe('session/events output', () => {
  it('accepts a history the core records, and gives back typed events', () => {
    const parsed = eventsOutput.parse({ events: history })
    expect(parsed.events).toEqual(history)
    const finished = parsed.events.find((e) => e.type === 'tool.finished')
    expect(finished?.type === 'tool.finished' && finished.ok).toBe(false)
  })

  it('refuses an event of no known type, naming where', () => {
    const issue = firstIssue(
      eventsOutput.safeParse({ events: [...history, { ...at, seq: 7, type: 'tool.exploded' }] }),
    )
    expect(issue.path).toBe('events.7.type')
  })

  it('refuses a tool.finished without its ok, and a result that is not an object', () => {
    const { ok: _ok, ...noOk } = history[5] as Extract<StepwiseEvent, { type: 'tool.finished' }>
    expect(firstIssue(eventsOutput.safeParse({ events: [noOk] })).path).toBe('events.0.ok')
    const listResult = { ...history[5], result: ['exit 1'] }
    expect(firstIssue(eventsOutput.safeParse({ events: [listResult] })).path).toBe('events.0.result')
  })

  it('refuses an approval decided by anyone but the user or the policy', () => {
    const byHost = { ...history[4], by: 'host' }
    expect(firstIssue(eventsOutput.safeParse({ events: [byHost] })).path).toBe('events.0.by')
  })
})

describe('error codes', () => {
  it('accepts every code the core emits', () => {
    for (const code of ERROR_CODES) {
      expect(
        stepwiseEventSchema.safeParse({ ...at, seq: 1, type: 'error', code, message: 'm' }).success,
      ).toBe(true)
    }
  })

  it('refuses a free-form code, listing the known ones', () => {
    const issue = firstIssue(
      stepwiseEventSchema.safeParse({ ...at, seq: 1, type: 'error', code: 'provider', message: 'm' }),
    )
    expect(issue.path).toBe('code')
    expect(issue.message).toContain('model-unreachable')
  })
})

describe('session/list status', () => {
  const row = {
    id: 's1',
    repo: '/p',
    title: 't',
    parentId: null,
    provider: 'ollama',
    model: 'qwen',
    createdAt: 1,
    updatedAt: 2,
  }

  it('accepts each status a session can be in', () => {
    for (const status of SESSION_STATUSES)
      expect(listOutput.safeParse({ sessions: [{ ...row, status }] }).success).toBe(true)
  })

  it('refuses a status the store never sets', () => {
    expect(firstIssue(listOutput.safeParse({ sessions: [{ ...row, status: 'paused' }] })).path).toBe(
      'sessions.0.status',
    )
  })
})

describe('the wire envelope', () => {
  it('gives back the request a client sent, through JSON', () => {
    const sent: ClientRequest = { id: 42, command: 'session/events', input: { sessionId: 's1', afterSeq: 3 } }
    expect(parseClientRequest(JSON.stringify(sent))).toEqual({ ok: true, request: sent })
  })

  it('carries an event and a host notice through JSON unchanged, each still valid on the other side', () => {
    const pushes: ServerMessage[] = [
      { message: history[6] },
      { message: { type: 'host.turn-ended', sessionId: 's1' } },
      { id: 42, reply: { ok: true, output: { events: history } } },
    ]
    const back = pushes.map((m) => JSON.parse(JSON.stringify(m)) as ServerMessage)
    expect(back).toEqual(pushes)
    expect(stepwiseEventSchema.parse((back[0] as { message: unknown }).message)).toEqual(history[6])
    expect(hostNoticeSchema.parse((back[1] as { message: unknown }).message)).toEqual({
      type: 'host.turn-ended',
      sessionId: 's1',
    })
    const reply = (back[2] as { reply: { ok: true; output: unknown } }).reply
    expect(eventsOutput.parse(reply.output).events).toEqual(history)
  })

  it('answers a request with a usable id but no command under that id', () => {
    expect(parseClientRequest(JSON.stringify({ id: 9, input: {} }))).toMatchObject({ ok: false, id: 9 })
  })
})

describe('PROTOCOL_VERSION', () => {
  it('is a positive integer stamped on session.started', () => {
    expect(Number.isInteger(PROTOCOL_VERSION) && PROTOCOL_VERSION > 0).toBe(true)
    expect(stepwiseEventSchema.parse(history[0])).toMatchObject({ protocolVersion: PROTOCOL_VERSION })
  })

  it('refuses a session.started without a version or with a fractional one', () => {
    const { protocolVersion: _v, ...unversioned } = history[0] as Extract<
      StepwiseEvent,
      { type: 'session.started' }
    >
    expect(firstIssue(stepwiseEventSchema.safeParse(unversioned)).path).toBe('protocolVersion')
    expect(firstIssue(stepwiseEventSchema.safeParse({ ...history[0], protocolVersion: 1.5 })).path).toBe(
      'protocolVersion',
    )
  })
})
