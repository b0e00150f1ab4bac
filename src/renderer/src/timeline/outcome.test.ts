import { describe, expect, it } from 'vitest'
import { reduceEvents, type ToolStep } from '../../../shared/reducer'
import type { EventDraft, StepwiseEvent } from '../../../shared/protocol'
import { describeStep } from './describe'
import { timesText, toolOutcome } from './outcome'

/** One tool call through the real reducer; `at` gives each event its time (ms). */
function toolStep(drafts: EventDraft[], at: number[]): ToolStep {
  const events = drafts.map((d, i) => ({ ...d, sessionId: 's1', seq: i + 1, ts: at[i] }) as StepwiseEvent)
  return reduceEvents(events).steps.find((s): s is ToolStep => s.kind === 'tool')!
}

const started = (name: string, args: unknown): EventDraft => ({
  type: 'tool.started',
  callId: 'c1',
  name,
  args,
  mutating: true,
})
const asked: EventDraft = {
  type: 'approval.requested',
  callId: 'c1',
  tool: 'run_tests',
  subject: { kind: 'command', command: 'pytest', cwd: '/p', verdict: 'ask', reason: 'asks' },
}
const finished = (ok: boolean, result: Record<string, unknown>, durationMs: number): EventDraft => ({
  type: 'tool.finished',
  callId: 'c1',
  name: 'run_tests',
  ok,
  result,
  durationMs,
})

describe('a tool row says its outcome in words', () => {
  it('a failed test run after a 21 s wait: counts, the run time apart from the wait', () => {
    const step = toolStep(
      [
        started('run_tests', {}),
        asked,
        { type: 'approval.resolved', callId: 'c1', decision: 'accept', by: 'user' },
        finished(
          false,
          {
            ok: false,
            error: '1 test failed: test_login',
            passed: 3,
            failed: 1,
            exit_code: 1,
            duration_ms: 450,
          },
          21_850,
        ),
      ],
      [0, 5, 21_405, 21_850],
    )
    expect(toolOutcome(step)).toBe('3 passed, 1 failed')
    expect(timesText(step)).toBe('ran 450 ms · waited 21.4 s for you')
    expect(describeStep(step).meta).toBe('3 passed, 1 failed · approved · ran 450 ms · waited 21.4 s for you')
  })

  it('a command: its exit code and the first line of its error', () => {
    const step = toolStep(
      [
        started('run_command', { command: 'make' }),
        finished(false, { ok: false, error: 'Exit code 2.\nmore', exit_code: 2 }, 80),
      ],
      [0, 80],
    )
    expect(toolOutcome(step)).toBe('exit 2 · Exit code 2.')
    expect(timesText(step)).toBe('ran 80 ms')
  })

  it('a command the deny list refused: "denied:" and why', () => {
    const error =
      'Refused: rm -rf deletes recursively. This is never allowed; find another way or ask the user to do it.'
    const step = toolStep(
      [started('run_command', { command: 'rm -rf /' }), finished(false, { ok: false, error }, 2)],
      [0, 2],
    )
    expect(toolOutcome(step)).toBe('denied: rm -rf deletes recursively')
  })

  it("a rejection with the user's reason, and a policy denial", () => {
    const rejected = toolStep(
      [
        started('run_command', { command: 'curl x' }),
        asked,
        {
          type: 'approval.resolved',
          callId: 'c1',
          decision: 'reject',
          by: 'user',
          reason: 'no network please',
        },
        finished(false, { ok: false, error: 'The user rejected' }, 4000),
      ],
      [0, 1, 3001, 3002],
    )
    expect(toolOutcome(rejected)).toBe('rejected: no network please')
    // A rejected call did not run: only the wait is worth a figure.
    expect(describeStep(rejected).meta).toBe('rejected: no network please · waited 3.0 s for you')
    const denied = toolStep(
      [
        started('run_command', { command: 'curl x' }),
        {
          type: 'approval.resolved',
          callId: 'c1',
          decision: 'reject',
          by: 'policy',
          reason: 'read-only session',
        },
        finished(false, { ok: false, error: 'x' }, 1),
      ],
      [0, 1, 1],
    )
    expect(toolOutcome(denied)).toBe('denied: read-only session')
  })

  it('a read: which lines of how many', () => {
    const read = (result: Record<string, unknown>): ToolStep =>
      toolStep(
        [started('read_file', { path: 'a.py' }), finished(true, { ok: true, path: 'a.py', ...result }, 3)],
        [0, 3],
      )
    expect(toolOutcome(read({ total_lines: 120, start_line: 1, end_line: 40 }))).toBe('lines 1–40 of 120')
    expect(toolOutcome(read({ total_lines: 12, start_line: 1, end_line: 12 }))).toBe('12 lines')
  })
})

describe("the model's answer", () => {
  it('is shown whole, however long, while a step that calls tools keeps a short head', () => {
    const long = `Done.\n\n\`\`\`py\n${'x = 1\n'.repeat(200)}\`\`\`\nThe end.`
    const events = (toolCalls: { id: string; name: string; arguments: string }[]): StepwiseEvent[] =>
      (
        [
          { type: 'assistant.delta', step: 1, text: long },
          {
            type: 'assistant.message',
            step: 1,
            text: long,
            toolCalls,
            durationMs: 5,
            usage: { inputTokens: 1, outputTokens: 1 },
            provider: 'ollama',
            model: 'm',
          },
        ] as EventDraft[]
      ).map((d, i) => ({ ...d, sessionId: 's1', seq: i + 1, ts: i }) as StepwiseEvent)
    const answer = describeStep(reduceEvents(events([])).steps[0])
    expect(answer).toMatchObject({ whole: true, markdown: long.trim() })
    const working = describeStep(
      reduceEvents(events([{ id: 'c', name: 'read_file', arguments: '{}' }])).steps[0],
    )
    expect(working.whole).toBeUndefined()
    expect(working.markdown!.length).toBeLessThan(700)
  })
})
