import { describe, expect, it } from 'vitest'
import { indexOfSeq } from './seq'
import { sessionSteps } from './testSession'

describe('indexOfSeq', () => {
  const steps = sessionSteps()

  it('finds every step by its seq', () => {
    steps.forEach((s, i) => expect(indexOfSeq(steps, s.seq)).toBe(i))
  })

  it('returns -1 for a seq that is not there', () => {
    expect(indexOfSeq(steps, 0)).toBe(-1)
    expect(indexOfSeq(steps, 9999)).toBe(-1)
    expect(indexOfSeq([], 1)).toBe(-1)
  })

  it('still finds a step in a list that is out of order', () => {
    const shuffled = [steps[3], steps[0], steps[2], steps[1]]
    expect(indexOfSeq(shuffled, steps[1].seq)).toBe(3)
  })
})
