import { describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../../shared/protocol'
import { stepCallsOf, upcoming } from './stepCalls'

const message = (ids: string[]) =>
  ({
    type: 'assistant.message',
    toolCalls: ids.map((id) => ({ id, name: 'write_file', arguments: `{"path":"${id}.txt"}` })),
  }) as unknown as StepwiseEvent
const finished = (callId: string) => ({ type: 'tool.finished', callId }) as unknown as StepwiseEvent

describe('stepCallsOf', () => {
  it('places the waiting call among its step: done before, next after', () => {
    const step = stepCallsOf([message(['a', 'b', 'c']), finished('a')], 'b')!
    expect(step.index).toBe(1)
    expect(step.calls.map((c) => c.state)).toEqual(['done', 'waiting', 'next'])
    expect(upcoming(step)).toEqual(['c'])
  })

  it('says nothing for a step of one call or a call it cannot find', () => {
    expect(stepCallsOf([message(['a'])], 'a')).toBeNull()
    expect(stepCallsOf([message(['a', 'b'])], 'z')).toBeNull()
  })

  it('uses the latest message naming the call', () => {
    const step = stepCallsOf([message(['x', 'y']), message(['b', 'c', 'd'])], 'c')!
    expect(step.calls.map((c) => c.callId)).toEqual(['b', 'c', 'd'])
  })
})
