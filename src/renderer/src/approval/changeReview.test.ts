import { describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../../shared/protocol'
import { answeredByAll, diffCounts, notAskedYet, reviewOf } from './changeReview'

const base = { sessionId: 's', ts: 0 }
const proposed = (seq: number, ids: string[]): StepwiseEvent[] =>
  ids.map((id, i) => ({
    ...base,
    seq: seq + i,
    type: 'change.proposed',
    step: 2,
    index: i,
    count: ids.length,
    change:
      i === ids.length - 1 && ids.length > 2
        ? { callId: id, tool: 'edit_file', path: 'a.py', change: 'modify', follows: true }
        : {
            callId: id,
            tool: 'edit_file',
            path: i === 0 ? 'a.py' : `${id}.py`,
            change: 'modify',
            diff: '--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n-old\n+new\n+more\n',
          },
  }))
const resolved = (seq: number, callId: string, decision: 'accept' | 'reject' | 'partial'): StepwiseEvent =>
  ({ ...base, seq, type: 'approval.resolved', callId, decision, by: 'user' }) as StepwiseEvent
const finished = (seq: number, callId: string, ok: boolean): StepwiseEvent => ({
  ...base,
  seq,
  type: 'tool.finished',
  callId,
  name: 'edit_file',
  ok,
  result: { ok },
  durationMs: 1,
})

describe('reviewOf', () => {
  it('places the asked change among its step, with what each earlier one came to', () => {
    const events = [
      ...proposed(1, ['a', 'b', 'c', 'd']),
      resolved(5, 'a', 'partial'),
      finished(6, 'a', true),
      resolved(8, 'b', 'reject'),
      finished(9, 'b', false),
    ]
    const review = reviewOf(events, 'c')!
    expect(review.index).toBe(2)
    expect(review.files.map((f) => [f.path, f.state, f.follows])).toEqual([
      ['a.py', 'partial', false],
      ['b.py', 'rejected', false],
      ['c.py', 'asking', false],
      ['a.py', 'next', true],
    ])
    expect(review.files[0]).toMatchObject({ added: 2, removed: 1 })
    expect(notAskedYet(review)).toEqual(['d'])
  })

  it('leaves a change chosen on its own row out of "accept all" and "reject all"', () => {
    const review = reviewOf(proposed(1, ['a', 'b', 'c', 'd']), 'a')!
    expect(answeredByAll(review, () => false)).toEqual(['b', 'c', 'd'])
    expect(answeredByAll(review, (id) => id === 'c')).toEqual(['b', 'd'])
    expect(answeredByAll(review, () => true)).toEqual([])
  })

  it('counts a change that ran unasked after "always" as accepted, one that failed as not applied', () => {
    const review = reviewOf(
      [...proposed(1, ['a', 'b', 'c']), finished(4, 'a', true), finished(5, 'b', false)],
      'c',
    )!
    expect(review.files.map((f) => f.state)).toEqual(['accepted', 'not-run', 'asking'])
  })

  it('is null for a call its step did not announce, and reads the newest announcement', () => {
    expect(reviewOf(proposed(1, ['a', 'b']), 'z')).toBeNull()
    // An announcement cut short (a stop between its events) is no review.
    expect(reviewOf(proposed(1, ['a', 'b', 'c']).slice(0, 2), 'a')).toBeNull()
    const review = reviewOf([...proposed(1, ['a', 'b']), ...proposed(9, ['x', 'b'])], 'b')!
    expect(review.files.map((f) => f.callId)).toEqual(['x', 'b'])
  })
})

describe('diffCounts', () => {
  it('leaves the file headers out', () => {
    expect(diffCounts('--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n-b\n+c\n')).toEqual({ added: 1, removed: 2 })
    expect(diffCounts(undefined)).toEqual({ added: 0, removed: 0 })
  })
})
