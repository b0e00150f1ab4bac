import { describe, expect, it } from 'vitest'
import { maxOf, minOf, pushAll } from './arrays'

describe('arrays', () => {
  it('pushAll appends in order and returns the target', () => {
    const target = [1]
    expect(pushAll(target, [2, 3])).toBe(target)
    expect(target).toEqual([1, 2, 3])
  })

  it('pushAll takes more items than a spread can (the 50 MB delete_file crash)', () => {
    const many = Array.from({ length: 1_000_000 }, (_, i) => i)
    expect(() => Array.prototype.push.apply([], many)).toThrow(RangeError)
    expect(pushAll([], many)).toHaveLength(1_000_000)
  })

  it('maxOf and minOf agree with Math.max and Math.min, bounds included', () => {
    expect(maxOf([3, 9, 2])).toBe(9)
    expect(minOf([3, 9, 2])).toBe(2)
    expect(maxOf([], 2)).toBe(2)
    expect(maxOf([1], 2)).toBe(2)
    expect(minOf([])).toBe(Infinity)
    expect(maxOf([])).toBe(-Infinity)
    expect(maxOf(Array.from({ length: 1_000_000 }, (_, i) => i))).toBe(999_999)
  })
})
