import { describe, expect, it } from 'vitest'
import {
  approvalAnswerSchema,
  approvalSubjectSchema,
  commandSchemas,
  isCommandName,
  parseClientRequest,
  parseCommand,
  stepwiseEventSchema,
  upgradeApprovalPayload,
} from './index'

// The protocol is the boundary the untrusted renderer and the web host's sockets cross: these cases
// pin what it refuses and how stored payloads of older versions are read.

describe('parseClientRequest', () => {
  it('reads a well-formed request and keeps its input as sent', () => {
    const parsed = parseClientRequest('{"id":7,"command":"session/list","input":{"repo":"/p"}}')
    expect(parsed).toEqual({
      ok: true,
      request: { id: 7, command: 'session/list', input: { repo: '/p' } },
    })
  })

  it.each([
    ['not JSON', '{id:1', null, 'not valid JSON'],
    ['an array', '[1,2]', null, 'Expected an object'],
    ['null', 'null', null, 'Expected an object'],
    ['a negative id', '{"id":-1,"command":"x"}', null, 'non-negative integer'],
    ['a fractional id', '{"id":1.5,"command":"x"}', null, 'non-negative integer'],
    ['an id past 2^53', '{"id":9007199254740993,"command":"x"}', null, 'non-negative integer'],
    ['a string id', '{"id":"1","command":"x"}', null, 'non-negative integer'],
    ['no command', '{"id":3}', 3, 'command name'],
    ['an empty command', '{"id":4,"command":""}', 4, 'command name'],
  ])('refuses %s, answering under the id when it has a usable one', (_, text, id, error) => {
    const parsed = parseClientRequest(text)
    expect(parsed.ok).toBe(false)
    if (parsed.ok) return
    expect(parsed.id).toBe(id)
    expect(parsed.error).toContain(error)
  })
})

describe('command names', () => {
  it('knows only its own commands, not names inherited from Object', () => {
    expect(isCommandName('session/list')).toBe(true)
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty', '']) {
      expect(isCommandName(name)).toBe(false)
    }
  })

  it('gives every command an input and an output schema', () => {
    for (const [name, schema] of Object.entries(commandSchemas)) {
      expect(typeof schema.input.safeParse, name).toBe('function')
      expect(typeof schema.output.safeParse, name).toBe('function')
    }
  })

  it('names the bad field of an untrusted command', () => {
    expect(() => parseCommand('session/create', { repo: '' })).toThrow(/repo/)
    expect(() => parseCommand('session/create', { repo: '/p', maxSteps: 10_001 })).toThrow(/maxSteps/)
    expect(() => parseCommand('session/create', { repo: '/p', baseUrl: 'not a url' })).toThrow(/baseUrl/)
  })
})

describe('approval answers', () => {
  it('accepts each decision the hosts send', () => {
    for (const answer of [
      { decision: 'accept' },
      { decision: 'reject', reason: 'use the helper' },
      { decision: 'edited', editedContent: 'x' },
      { decision: 'partial', editedContent: 'x' },
      { decision: 'regenerate' },
      { decision: 'always', scope: 'project' },
    ]) {
      expect(approvalAnswerSchema.safeParse(answer).success, JSON.stringify(answer)).toBe(true)
    }
  })

  it('refuses an unknown decision, an unbounded reason and an "always" without a scope', () => {
    expect(approvalAnswerSchema.safeParse({ decision: 'maybe' }).success).toBe(false)
    expect(approvalAnswerSchema.safeParse({ decision: 'reject', reason: 'x'.repeat(4001) }).success).toBe(
      false,
    )
    expect(approvalAnswerSchema.safeParse({ decision: 'always' }).success).toBe(false)
    expect(approvalAnswerSchema.safeParse({ decision: 'always', scope: 'forever' }).success).toBe(false)
  })
})

describe('upgradeApprovalPayload', () => {
  const subjectOf = (payload: Record<string, unknown>): unknown =>
    approvalSubjectSchema.parse(upgradeApprovalPayload(payload).subject)

  it('rewrites an old file change into a file subject', () => {
    const change = { path: 'a.ts', kind: 'modify', diff: '@@', before: 'a', after: 'b' }
    expect(subjectOf({ tool: 'edit_file', change })).toEqual({
      kind: 'file',
      path: 'a.ts',
      change: 'modify',
      diff: '@@',
      before: 'a',
      after: 'b',
    })
  })

  it('rewrites an old command, conflict and MCP call', () => {
    expect(subjectOf({ tool: 'run_command', command: { command: 'ls', cwd: '.' } })).toEqual({
      kind: 'command',
      command: 'ls',
      cwd: '.',
      verdict: 'ask',
    })
    expect(subjectOf({ conflict: { path: 'a.ts', message: 'changed on disk' } })).toEqual({
      kind: 'conflict',
      path: 'a.ts',
      message: 'changed on disk',
    })
    expect(subjectOf({ mcp: { server: 's', tool: 't', args: { q: 1 } } })).toEqual({
      kind: 'mcp',
      server: 's',
      tool: 't',
      args: { q: 1 },
    })
  })

  it('names the tool as the command when an old payload carried neither', () => {
    expect(subjectOf({ tool: 'run_tests' })).toMatchObject({ kind: 'command', command: 'run_tests' })
  })

  it('keeps the other fields and leaves a payload that already has a subject alone', () => {
    const upgraded = upgradeApprovalPayload({
      tool: 'run_command',
      callId: 'c1',
      command: { command: 'ls', cwd: '.' },
    })
    expect(upgraded).toMatchObject({ tool: 'run_command', callId: 'c1' })
    expect(upgraded).not.toHaveProperty('command')
    const current = { tool: 'x', subject: { kind: 'conflict', path: 'p', message: 'm' } }
    expect(upgradeApprovalPayload(current)).toBe(current)
  })

  it('leaves a payload of neither shape as it is, for the event schema to refuse with its reason', () => {
    const broken = { tool: 'run_command', command: 'ls' }
    expect(upgradeApprovalPayload(broken)).toBe(broken)
    const badConflict = { tool: 'write_file', conflict: { path: 3 } }
    expect(upgradeApprovalPayload(badConflict)).toBe(badConflict)
  })
})

describe('events', () => {
  const base = { sessionId: 's', seq: 0, ts: 1 }

  it('reads a stored event of a known type', () => {
    const event = stepwiseEventSchema.parse({ ...base, type: 'user.message', text: 'hi' })
    expect(event.type).toBe('user.message')
  })

  it('refuses an unknown type and a negative or fractional seq', () => {
    expect(stepwiseEventSchema.safeParse({ ...base, type: 'user.whisper', text: 'hi' }).success).toBe(false)
    for (const seq of [-1, 1.5]) {
      expect(stepwiseEventSchema.safeParse({ ...base, seq, type: 'user.message', text: 'hi' }).success).toBe(
        false,
      )
    }
  })
})
