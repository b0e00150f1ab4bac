import { describe, expect, it } from 'vitest'
import type { TranscriptItem } from '../providers/types'
import {
  DROPPED_RESULT,
  dropOldToolResults,
  forgetResponseIds,
  requestCut,
  summaryCut,
  summaryRequest,
} from './compaction'
import { isSummaryItem, summaryItem } from '../providers/summary-item'
import { createTokenCounter, tokenizerFor } from './tokens'

const call = (id: string) => ({ id, name: 'read_file', arguments: `{"path":"${id}.ts"}` })

function session(turns: number): TranscriptItem[] {
  const items: TranscriptItem[] = [{ role: 'user', text: 'the task' }]
  for (let i = 0; i < turns; i++) {
    items.push({ role: 'assistant', text: `step ${i}`, toolCalls: [call(`c${i}`)], responseId: `resp_${i}` })
    items.push({
      role: 'tool',
      callId: `c${i}`,
      name: 'read_file',
      output: `{"ok":true,"content":"${'x'.repeat(500)}"}`,
    })
  }
  return items
}

describe('dropOldToolResults', () => {
  it('drops the oldest results first until enough is saved, keeping the recent ones and every pairing', () => {
    const t = session(6)
    const size = (i: TranscriptItem) => (i.role === 'tool' ? i.output.length : 0)
    const perResult = size(t[2]) - DROPPED_RESULT.length
    const { dropped, saved } = dropOldToolResults(t, perResult + 1, size, 4)
    expect(dropped).toBe(2)
    expect(saved).toBe(2 * perResult)
    const outputs = t.filter((i) => i.role === 'tool').map((i) => (i.role === 'tool' ? i.output : ''))
    expect(outputs.slice(0, 2)).toEqual([DROPPED_RESULT, DROPPED_RESULT])
    expect(outputs.slice(2).every((o) => o !== DROPPED_RESULT)).toBe(true)
    expect(t.filter((i) => i.role === 'tool').map((i) => (i.role === 'tool' ? i.callId : ''))).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
      'c5',
    ])
  })

  it('never touches the most recent items, even when nothing else helps', () => {
    const t = session(2)
    expect(dropOldToolResults(t, 1_000_000, () => 1, 10)).toEqual({ dropped: 0, saved: 0 })
  })
})

describe('summaryCut', () => {
  it('never separates a tool result from its call and keeps the task', () => {
    const t = session(6)
    const cut = summaryCut(t, 3)
    expect(cut).toBeGreaterThan(1)
    expect(t[cut].role).not.toBe('tool')
    expect(summaryCut(session(1), 6)).toBe(1)
  })

  it('the summary request carries the prefix and no tools, within the size asked', () => {
    const req = summaryRequest(session(50), 5000)
    expect(req.tools).toEqual([])
    expect(req.transcript).toHaveLength(1)
    const text = (req.transcript[0] as { text: string }).text
    expect(text.length).toBeLessThan(5100)
    expect(text).toContain('TOOL read_file RESULT')
  })
})

describe('token counting', () => {
  it('uses the real tokenizer per model family and calibrates against the server', () => {
    expect(tokenizerFor('gpt-4o')('hello world')).toBe(2)
    expect(tokenizerFor('gpt-4')('hello world')).toBe(2)
    const counter = createTokenCounter('qwen2.5-coder:7b')
    const req = { system: 'sys', tools: [], transcript: session(3) }
    const raw = counter.request(req)
    expect(raw).toBeGreaterThan(250)
    counter.calibrate(raw, raw * 2)
    const calibrated = counter.request(req)
    expect(calibrated).toBeGreaterThan(raw * 1.4)
    expect(calibrated).toBeLessThan(raw * 2.1)
  })
})

describe('forgetResponseIds', () => {
  it('drops every chain id so the next request sends the full history', () => {
    const t = session(2)
    forgetResponseIds(t)
    expect(t.filter((i) => i.role === 'assistant' && i.responseId)).toHaveLength(0)
  })
})

describe('a summary asked for', () => {
  it('passes the user’s focus to the model and is recognised as a summary later', () => {
    const items: TranscriptItem[] = [{ role: 'user', text: 'Fix the parser' }]
    const ask = summaryRequest(items, 10_000, '  the failing test ')
    const text = ask.transcript[0].role === 'user' ? ask.transcript[0].text : ''
    expect(text).toContain('USER: Fix the parser')
    expect(text.endsWith('keep above all: the failing test')).toBe(true)
    expect(summaryRequest(items, 10_000, '  ').transcript).toEqual(summaryRequest(items, 10_000).transcript)
    expect(isSummaryItem(summaryItem('It went well.'))).toBe(true)
    expect(isSummaryItem({ role: 'user', text: 'It went well.' })).toBe(false)
  })
})

describe('requestCut', () => {
  it('keeps the last exchange, moving past tool results rather than back over the work', () => {
    const run = session(3) // task, then call/result ×3
    run.push({ role: 'assistant', text: 'done', toolCalls: [] })
    // summaryCut steps back to keep the last call and its result; the cut on request keeps only the answer.
    expect(summaryCut(run, 2)).toBe(5)
    expect(requestCut(run, 2)).toBe(run.length - 1)
    const chat = [
      ...run,
      { role: 'user' as const, text: 'thanks' },
      { role: 'assistant' as const, text: 'ok', toolCalls: [] },
    ]
    expect(requestCut(chat, 2)).toBe(chat.length - 2)
    expect(requestCut([{ role: 'user', text: 'only the task' }], 2)).toBe(1)
  })
})
