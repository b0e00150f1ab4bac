import { describe, expect, it } from 'vitest'
import { reduceEvents, type TimelineStep } from '../../../shared/reducer'
import { approvalText, describeStep, markdownHead, previewLines, stepStatus } from './describe'
import { SESSION_EVENTS, sessionSteps } from './testSession'
import type { EventDraft, StepwiseEvent } from '../../../shared/protocol'

const stampDrafts = (drafts: EventDraft[]): StepwiseEvent[] =>
  drafts.map((d, i) => ({ ...d, sessionId: 's1', seq: i + 1, ts: 1000 + i }) as StepwiseEvent)

const steps = sessionSteps()
const step = <K extends TimelineStep['kind']>(kind: K, nth = 0): Extract<TimelineStep, { kind: K }> =>
  steps.filter((s): s is Extract<TimelineStep, { kind: K }> => s.kind === kind)[nth]

describe('describeStep', () => {
  it('shows the first two lines of a user message', () => {
    expect(describeStep(step('user'))).toEqual({
      title: 'You',
      preview: 'Fix the login bug\nIt fails on empty passwords.',
      markdown: 'Fix the login bug\n\nIt fails on empty passwords.\nThanks',
    })
  })

  it('sums up a model step: the model, tokens, duration, tool calls', () => {
    expect(describeStep(step('model'))).toEqual({
      title: 'Model · reply 1',
      meta: 'm · 12.3k in / 678 out · 1.2 s · 2 tool calls',
      preview: 'Reading the form',
      // A one-line note before a tool call: on the row's one line, no markdown block.
      inline: true,
    })
  })

  it('names a tool, summarises its arguments and says how the approval went', () => {
    expect(describeStep(step('tool', 0))).toEqual({
      title: 'read_file',
      meta: 'ran 12 ms',
      preview: 'src/login.ts',
    })
    expect(describeStep(step('tool', 1))).toMatchObject({ meta: 'approved · ran 2 ms' })
    expect(describeStep(step('tool', 2))).toMatchObject({ preview: 'npm test', meta: 'ran 2.1 s' })
  })

  it('says "waiting for you" while an approval is pending', () => {
    const waiting = reduceEvents(SESSION_EVENTS.slice(0, 8)).steps.at(-1)!
    expect(stepStatus(waiting)).toBe('waiting')
    expect(describeStep(waiting).meta).toBe('waiting for you')
  })

  it('writes the one-line kinds', () => {
    expect(describeStep(step('checkpoint')).title).toBe('Checkpoint · 1 file')
    expect(describeStep(step('compaction')).title).toBe('Context compacted 12.3k → 7.1k tokens')
    expect(describeStep(step('restore')).title).toBe('Undo restored 2 files')
    expect(describeStep(step('fork')).title).toBe('Forked to abcdef01')
    expect(describeStep(step('verify')).title).toBe('Checks failed (round 1 of 3)')
    expect(describeStep(step('verify')).preview).toBe('login.test.ts: 1 failed')
  })

  it('shows an error with its hint and a finding with its severity', () => {
    expect(describeStep(step('error'))).toEqual({
      title: 'The model server went away',
      meta: 'model-unreachable',
      preview: 'Is Ollama running?',
    })
    expect(describeStep(step('finding'))).toEqual({
      title: 'high · Null check',
      meta: 'bug · src/login.ts:4',
    })
  })
})

describe('stepStatus', () => {
  it('gives tools their status, models streaming or ok, errors error, the rest ok', () => {
    expect(steps.map(stepStatus)).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'error',
      'ok',
      'error',
      'ok',
      'ok',
      'ok',
      'ok',
    ])
    const streaming = reduceEvents(SESSION_EVENTS.slice(0, 3)).steps.at(-1)!
    expect(stepStatus(streaming)).toBe('streaming')
  })
})

describe('previewLines', () => {
  it('skips blank lines and collapses spaces', () => {
    expect(previewLines('\n\n  a   b \n\n c\nd', 2)).toBe('a b\nc')
  })

  it('cuts long text, even when the cut falls past the scanned head', () => {
    expect(previewLines('x'.repeat(1000), 2, 10)).toBe(`${'x'.repeat(9)}…`)
    expect(previewLines(`short${' '.repeat(500)}\n${'y'.repeat(5)}`, 2, 200)).toBe('short…')
  })
})

describe('approvalText', () => {
  it('says who decided when the policy did', () => {
    expect(approvalText({ decision: 'accept', by: 'user' })).toBe('approved')
    expect(approvalText({ decision: 'reject', by: 'policy' })).toBe('rejected by policy')
    expect(approvalText({ decision: 'pending', by: 'user' })).toBe('waiting for you')
  })

  it('names an "always allow" and the rule that let a call run unasked', () => {
    expect(approvalText({ decision: 'always', by: 'user' })).toBe('always allowed')
    expect(approvalText({ decision: 'accept', by: 'policy', rule: { scope: 'project' } })).toBe(
      'approved by the project rule',
    )
  })
})

describe('markdownHead', () => {
  it('keeps short messages whole', () => {
    expect(markdownHead('Changed **line 2**.\n\n```ts\nx\n```')).toBe('Changed **line 2**.\n\n```ts\nx\n```')
  })

  it('cuts long messages at a line and closes a fence the cut left open', () => {
    const text = `Intro\n\n\`\`\`ts\n${Array.from({ length: 80 }, (_, i) => `const v${i} = ${i}`).join('\n')}\n\`\`\`\nDone`
    const head = markdownHead(text, 200)
    expect(head.length).toBeLessThan(220)
    expect(head.endsWith('…\n```')).toBe(true)
    expect(head.match(/```/g)).toHaveLength(2)
  })
})

describe('an MCP tool row', () => {
  const tool = (events: EventDraft[]) => reduceEvents(stampDrafts(events)).steps[0]
  const started: EventDraft = {
    type: 'tool.started',
    callId: 'm1',
    name: 'mcp__everything__get-tiny-image',
    args: {},
    mutating: true,
  }

  it('names the server and its tool, and counts the images it returned', () => {
    const step = tool([
      started,
      {
        type: 'tool.finished',
        callId: 'm1',
        name: 'mcp__everything__get-tiny-image',
        ok: true,
        result: { ok: true },
        durationMs: 5,
        attachments: [{ kind: 'image', mimeType: 'image/png', data: 'AAAA' }],
      },
    ])
    expect(describeStep(step)).toMatchObject({
      title: 'everything · get-tiny-image',
      meta: '1 image · ran 5 ms',
    })
  })

  it('takes server and tool from the approval when it has them (a server name may hold "__")', () => {
    const step = tool([
      { ...started, name: 'mcp__my__srv__do__it' } as EventDraft,
      {
        type: 'approval.requested',
        callId: 'm1',
        tool: 'mcp__my__srv__do__it',
        subject: { kind: 'mcp', server: 'my__srv', tool: 'do__it', args: {} },
      },
    ])
    expect(describeStep(step).title).toBe('my__srv · do__it')
    expect(describeStep(tool([{ ...started, name: 'mcp__a__b__c' } as EventDraft])).title).toBe('a · b__c')
  })

  it('leaves other tools as they are named', () => {
    expect(describeStep(step('tool', 0)).title).toBe('read_file')
    expect(describeStep(tool([{ ...started, name: 'mcp_tool' } as EventDraft])).title).toBe('mcp_tool')
  })
})
