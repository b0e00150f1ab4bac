import { describe, expect, it } from 'vitest'
import type { TimelineStep } from '../../../shared/reducer'
import { errorActionsFor, lastTurnError } from './errorCard'

describe('errorActionsFor', () => {
  it('offers the model picker where the setup is wrong, another model where one would help', () => {
    expect(errorActionsFor('model-unreachable')).toEqual({ openModels: true, switchModel: false })
    expect(errorActionsFor('auth')).toEqual({ openModels: true, switchModel: false })
    expect(errorActionsFor('model-not-found')).toEqual({ openModels: true, switchModel: true })
    expect(errorActionsFor('quota')).toEqual({ openModels: false, switchModel: true })
    expect(errorActionsFor('server-error')).toEqual({ openModels: false, switchModel: true })
    // An internal error or a failed check is no model's fault: Retry, Skip and Dismiss only.
    expect(errorActionsFor('internal')).toEqual({ openModels: false, switchModel: false })
    expect(errorActionsFor(undefined)).toEqual({ openModels: false, switchModel: false })
  })
})

describe('lastTurnError', () => {
  const usage = { inputTokens: 0, outputTokens: 0 }
  const finish = (seq: number): TimelineStep => ({
    kind: 'finish',
    seq,
    ts: seq,
    reason: 'error',
    message: 'm',
    modelSteps: 1,
    usage,
    durationMs: 1,
  })
  const error = (seq: number): TimelineStep => ({ kind: 'error', seq, ts: seq, message: 'e', code: 'auth' })
  const user = (seq: number): TimelineStep => ({ kind: 'user', seq, ts: seq, text: 'u' })

  it("is the last turn's own error, never one of a turn before", () => {
    expect(lastTurnError([user(1), error(2), finish(3)])?.seq).toBe(2)
    // Checks still failing end the turn with no error event: the card shows the end's message.
    expect(lastTurnError([user(1), error(2), finish(3), user(4), finish(5)])).toBeUndefined()
    expect(lastTurnError([])).toBeUndefined()
  })
})
