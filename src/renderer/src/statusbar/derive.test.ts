import { describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../../shared/protocol'
import { emptySessionView, type SessionView } from '../../../shared/reducer'
import {
  contextLabel,
  contextLevel,
  contextUse,
  elapsedMs,
  formatClock,
  meterLabel,
  meterPercent,
  meterReading,
  meterShort,
  percentUsed,
  sessionState,
  type Baseline,
} from './derive'

const base = { sessionId: 's', ts: 0 }
function answer(seq: number, used?: number, window = 32_768): StepwiseEvent {
  return {
    ...base,
    seq,
    type: 'assistant.message',
    step: 1,
    text: '',
    toolCalls: [],
    usage: { inputTokens: 1, outputTokens: 1 },
    durationMs: 1,
    provider: 'ollama',
    model: 'm',
    ...(used === undefined ? {} : { context: { usedTokens: used, windowTokens: window } }),
  }
}

describe('contextUse', () => {
  it('reads the last answer that carried a count', () => {
    expect(contextUse([answer(1, 1000), answer(2, 13_400), answer(3)])).toEqual({
      usedTokens: 13_400,
      windowTokens: 32_768,
    })
  })
  it('follows a compaction that came after it', () => {
    const compacted: StepwiseEvent = {
      ...base,
      seq: 3,
      type: 'context.compacted',
      beforeTokens: 30_000,
      afterTokens: 4000,
    }
    expect(contextUse([answer(2, 30_000), compacted])).toEqual({
      usedTokens: 4000,
      windowTokens: 32_768,
      source: 'estimated',
    })
    expect(contextUse([compacted, answer(4, 9000)])).toEqual({ usedTokens: 9000, windowTokens: 32_768 })
  })
  it("says whose count it is: the server's, or our estimate", () => {
    const withSource = (promptSource: 'reported' | 'estimated'): StepwiseEvent => {
      const e = answer(2, 5000)
      if (e.type !== 'assistant.message') throw new Error('expected an answer')
      return { ...e, context: { usedTokens: 5000, windowTokens: 8192, promptSource } }
    }
    expect(contextUse([withSource('reported')])?.source).toBe('reported')
    expect(contextUse([withSource('estimated')])?.source).toBe('estimated')
  })
  it('is null before any count', () => {
    expect(contextUse([])).toBeNull()
    expect(contextUse([answer(1)])).toBeNull()
  })
})

describe('the context meter', () => {
  it('rounds the percent and names both counts', () => {
    const use = { usedTokens: 13_400, windowTokens: 32_000 }
    expect(percentUsed(use)).toBe(42)
    expect(contextLabel(use)).toBe('Context window 42% used (13.4k of 32k tokens)')
    expect(contextLabel(null)).toBe('Context window: not measured yet')
    expect(meterShort(meterReading(use, null))).toBe('42%')
    expect(meterShort(meterReading(null, null))).toBe('–')
  })
  it('marks our own estimate with "~" and says why in the tooltip', () => {
    const estimated = { usedTokens: 5000, windowTokens: 8192, source: 'estimated' as const }
    expect(meterShort(meterReading(estimated, null))).toBe('~61%')
    expect(contextLabel(estimated)).toBe(
      'Context window about 61% used (~5k of 8.2k tokens; estimated by Stepwise: the server reported fewer tokens or none)',
    )
    const reported = { ...estimated, source: 'reported' as const }
    expect(meterShort(meterReading(reported, null))).toBe('61%')
    expect(contextLabel(reported)).toBe(
      'Context window 61% used (5k of 8.2k tokens, as the server counted them)',
    )
  })
  it('warms up as it fills', () => {
    expect(contextLevel(42)).toBe('ok')
    expect(contextLevel(70)).toBe('high')
    expect(contextLevel(95)).toBe('full')
  })
})

describe('sessionState', () => {
  const view = (patch: Partial<SessionView>): SessionView => ({ ...emptySessionView, ...patch })
  it('names what the agent is doing', () => {
    expect(sessionState(view({ status: 'thinking' }), true, false).label).toBe('thinking')
    expect(sessionState(view({ status: 'running-tool' }), true, false).label).toBe('running tool')
    expect(sessionState(view({ status: 'waiting' }), true, false).label).toBe('waiting for you')
    expect(sessionState(view({ status: 'idle' }), true, false).label).toBe('ready')
    expect(sessionState(view({}), false, true).label).toBe('thinking')
  })
  it('tells a failed turn from a finished one', () => {
    const failed = view({
      status: 'finished',
      finishReason: 'error',
      steps: [
        { kind: 'user', seq: 1, ts: 0, text: 'go' },
        { kind: 'error', seq: 2, ts: 0, message: 'Ollama is not running', code: 'model-unreachable' },
      ],
    })
    expect(sessionState(failed, true, false)).toEqual({
      key: 'error',
      label: 'error',
      detail: 'Ollama is not running',
    })
    expect(sessionState(view({ status: 'finished', finishReason: 'done' }), true, false).label).toBe(
      'finished',
    )
    expect(sessionState(view({ status: 'finished', finishReason: 'interrupted' }), true, false).label).toBe(
      'stopped',
    )
  })
  it('shows an error left as the last step', () => {
    const v = view({
      status: 'idle',
      steps: [{ kind: 'error', seq: 1, ts: 0, message: 'quota', code: 'quota' }],
    })
    expect(sessionState(v, true, false).key).toBe('error')
  })
})

describe('the session clock', () => {
  it('runs to now during a turn and stops at the last finish', () => {
    expect(elapsedMs({ status: 'thinking', startedAt: 1000, finishedAt: null }, 8000)).toBe(7000)
    expect(elapsedMs({ status: 'finished', startedAt: 1000, finishedAt: 4000 }, 99_000)).toBe(3000)
    expect(elapsedMs({ status: 'thinking', startedAt: 1000, finishedAt: 4000 }, 9000)).toBe(8000)
    expect(elapsedMs({ status: 'idle', startedAt: null, finishedAt: null }, 9000)).toBeNull()
    expect(elapsedMs({ status: 'idle', startedAt: 1000, finishedAt: null }, 9000)).toBeNull()
  })
  it('reads like a clock', () => {
    expect(formatClock(7_400)).toBe('0:07')
    expect(formatClock(723_000)).toBe('12:03')
    expect(formatClock(3_723_000)).toBe('1:02:03')
    expect(formatClock(-5)).toBe('0:00')
  })
})

describe('meterReading', () => {
  const known: Baseline = {
    systemTokens: 1800,
    rulesTokens: 300,
    toolsTokens: 2400,
    repoMapTokens: 500,
    totalTokens: 5000,
    windowTokens: 32_768,
    windowSource: 'server',
  }
  const unknown: Baseline = {
    ...known,
    windowTokens: null,
    windowSource: 'unknown',
    fix: 'Set it with --num-ctx.',
  }

  it('shows the baseline before the first answer, with what takes it', () => {
    const r = meterReading(null, known)!
    expect(meterShort(r)).toBe('~15%')
    expect(meterLabel(r)).toContain('before the first message')
    expect(meterLabel(r)).toContain('system prompt 1.8k, tools 2.4k, project rules 300, repo map 500')
  })

  it('follows the answers once there are some', () => {
    const r = meterReading({ usedTokens: 16_384, windowTokens: 32_768, source: 'reported' }, known)!
    expect(meterShort(r)).toBe('50%')
    expect(meterLabel(r)).toContain('as the server counted them')
  })

  it('never shows a percentage of an unknown window, and says how to set it', () => {
    const before = meterReading(null, unknown)!
    expect(meterPercent(before)).toBeNull()
    expect(meterShort(before)).toBe('5k / ?')
    expect(meterLabel(before)).toContain('Context window unknown')
    // In the app's words: the host's hint names a CLI flag, which the app does not repeat.
    expect(meterLabel(before)).toContain('model picker')
    expect(meterLabel(before)).not.toContain('--')
    // The answers' window was a guess: still unknown.
    const after = meterReading({ usedTokens: 9000, windowTokens: 8192, source: 'reported' }, unknown)!
    expect(meterShort(after)).toBe('9k / ?')
    // Once set, the set window counts from now on, before the next answer.
    const set: Baseline = { ...known, windowTokens: 90_000, windowSource: 'setting' }
    expect(meterShort(meterReading({ usedTokens: 9000, windowTokens: 8192, source: 'reported' }, set)!)).toBe(
      '10%',
    )
  })

  it('is nothing before both', () => {
    expect(meterReading(null, null)).toBeNull()
    expect(meterShort(null)).toBe('–')
  })
})
