import { describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../../shared/protocol'
import { reduceEvents } from '../../../shared/reducer'
import { Scrubber } from './scrub'

function session(n: number): StepwiseEvent[] {
  const events: StepwiseEvent[] = [
    {
      type: 'session.started',
      sessionId: 's',
      seq: 1,
      ts: 1000,
      protocolVersion: 1,
      repo: '/p',
      provider: 'ollama',
      model: 'm',
      approvalPolicy: 'ask',
      maxSteps: 50,
    },
  ]
  for (let i = 0; i < n; i++)
    events.push({ type: 'user.message', sessionId: 's', seq: i + 2, ts: 1000 + i * 10, text: `m${i}` })
  return events
}

describe('Scrubber', () => {
  it('gives the same view as reducing the prefix, forwards, backwards and across checkpoints', () => {
    const events = session(700)
    const scrub = new Scrubber(events)
    for (const count of [0, 1, 260, 700, 3, 501, 701, 999]) {
      expect(scrub.viewAt(count)).toEqual(reduceEvents(events.slice(0, count)))
    }
    expect(scrub.seqAt(0)).toBeNull()
    expect(scrub.seqAt(2)).toBe(2)
  })

  it('plays with the real gaps, capped and divided by the speed', () => {
    const scrub = new Scrubber(session(3))
    expect(scrub.delayBefore(2, 1)).toBe(16)
    expect(scrub.delayBefore(2, 2)).toBe(8)
    expect(scrub.delayBefore(0, 1)).toBe(0)
  })
})
