import { countTokens } from 'gpt-tokenizer'
import { describe, expect, it } from 'vitest'
import { linearCount, tokenizerFor } from './tokens'

/*
 * The linear-time counter (tokens.ts#linearCount) against the tokenizer itself: the same count
 * on ordinary text, and within one token a piece on the long runs it counts in pieces. Its speed
 * is measured in bench/tokens.bench.ts, never here.
 */

const exactly = linearCount(countTokens)

describe('linearCount', () => {
  it('gives the exact count on ordinary text: code, prose, JSON, a minified line', () => {
    const texts = [
      'function add(a: number, b: number) {\n  return a + b\n}\n'.repeat(400),
      'The quick brown fox jumps over the lazy dog. '.repeat(300),
      JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `item ${i}` })) }),
      'var a=1;'.repeat(20),
    ]
    for (const text of texts) expect(exactly(text)).toBe(countTokens(text))
  })

  it('counts long runs of one class in pieces, off by at most one token a piece', () => {
    for (const run of [
      'a'.repeat(3000),
      ' '.repeat(3000),
      '=-'.repeat(1500),
      'x'.repeat(300) + '\n' + 'y'.repeat(2000),
    ]) {
      const pieces = Math.ceil(run.length / 128) + 2
      expect(Math.abs(exactly(run) - countTokens(run))).toBeLessThanOrEqual(pieces)
    }
  })

  it('extrapolates a run past its sample from the counted part', () => {
    const run = 'b'.repeat(400_000)
    const sampled = countTokens('b'.repeat(128)) * ((16 * 1024) / 128)
    // The run's place in the rest of the text holds one space, counted there.
    expect(exactly(run)).toBe(Math.ceil((sampled * run.length) / (16 * 1024)) + countTokens(' '))
  })

  it('is what every model gets', () => {
    expect(tokenizerFor('gpt-5')('hello world')).toBe(2)
    expect(tokenizerFor('qwen2.5-coder:7b')(' '.repeat(10_000))).toBeGreaterThan(0)
  })
})
