import { describe, expect, it } from 'vitest'
import type { EventDraft, StepwiseEvent } from '../../shared/protocol'
import { summaryItem } from '../providers/summary-item'
import { transcriptFromEvents } from '../providers/transcript'
import { checkForkPoint, resumeBundle } from './resume'

function stamp(drafts: EventDraft[]): StepwiseEvent[] {
  return drafts.map((d, i) => ({ ...d, sessionId: 's', seq: i + 1, ts: i }) as StepwiseEvent)
}

const usage = { inputTokens: 1, outputTokens: 1 }
const answer = (step: number, text: string): EventDraft => ({
  type: 'assistant.message',
  step,
  text,
  toolCalls: [],
  usage,
  durationMs: 1,
  provider: 'ollama',
  model: 'm',
})

describe('transcriptFromEvents and compaction', () => {
  const events = stamp([
    { type: 'user.message', text: 'task' },
    {
      type: 'assistant.message',
      step: 1,
      text: '',
      toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }],
      usage,
      durationMs: 1,
      provider: 'ollama',
      model: 'm',
    },
    { type: 'tool.finished', callId: 'c1', name: 'read_file', ok: true, result: { ok: true }, durationMs: 1 },
    answer(2, 'read it'),
    { type: 'user.message', text: 'thanks' },
    answer(3, 'welcome'),
    // Inside a turn: later turns redo it, so it changes nothing here.
    { type: 'context.compacted', beforeTokens: 9, afterTokens: 5, summary: 'inside a turn' },
    // Asked for: all but the first message and the last two items become the summary.
    { type: 'context.compacted', beforeTokens: 9, afterTokens: 4, summary: 'asked for', keptItems: 2 },
    { type: 'user.message', text: 'next' },
  ])

  it('starts later turns from a summary asked for, and leaves the rest alone', () => {
    expect(transcriptFromEvents(events, 9)).toEqual([
      { role: 'user', text: 'task' },
      summaryItem('asked for'),
      { role: 'user', text: 'thanks' },
      { role: 'assistant', text: 'welcome', toolCalls: [] },
      { role: 'user', text: 'next' },
    ])
  })

  it('gives a step before the compaction its full history', () => {
    expect(transcriptFromEvents(events, 7)).toHaveLength(6)
    expect(transcriptFromEvents(events, 7)).not.toContainEqual(summaryItem('inside a turn'))
  })
})

describe('continuing from any end', () => {
  const stopped = stamp([
    { type: 'user.message', text: 'task' },
    { type: 'assistant.delta', step: 1, text: 'Half' },
    { type: 'session.finished', reason: 'interrupted', steps: 1, usage, durationMs: 1 },
  ])

  it('Retry asks for the unfinished turn again; a new message keeps its partial answer', () => {
    expect(resumeBundle(stopped, { retry: true }).transcript).toEqual([{ role: 'user', text: 'task' }])
    expect(resumeBundle(stopped).transcript.at(-1)).toMatchObject({ role: 'assistant', interrupted: true })
    expect(resumeBundle(stopped).modelSteps).toBe(0)
  })

  it('forks from a turn that never finished, not from inside one the session went on to finish', () => {
    expect(() => checkForkPoint(stopped, 2)).not.toThrow()
    const finishedLater = stamp([
      { type: 'user.message', text: 'task' },
      { type: 'assistant.delta', step: 1, text: 'Half' },
      answer(1, 'Half and whole'),
    ])
    expect(() => checkForkPoint(finishedLater, 2)).toThrow(/inside a model turn that finished later/)
    expect(() => checkForkPoint(finishedLater, 3)).not.toThrow()
  })
})
