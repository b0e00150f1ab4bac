import { describe, expect, it } from 'vitest'
import {
  choiceLabel,
  formatGigabytes,
  pullPercent,
  pullText,
  sameModel,
  splitBackticks,
  formatPrice,
} from './format'

describe('formatGigabytes', () => {
  it('counts like Ollama, in 10^9 bytes', () => {
    expect(formatGigabytes(4_683_087_332)).toBe('4.7 GB')
    expect(formatGigabytes(397_821_319)).toBe('0.4 GB')
    expect(formatGigabytes(141_000_000_000)).toBe('141 GB')
  })
  it('falls back to MB for tiny models and says nothing when the size is unknown', () => {
    expect(formatGigabytes(22_000_000)).toBe('22 MB')
    expect(formatGigabytes(undefined)).toBe('')
    expect(formatGigabytes(-1)).toBe('')
  })
})

describe('pullPercent', () => {
  it('is the share of the current layer, floored so 100 means done', () => {
    expect(pullPercent({ status: 'pulling abc', completed: 999, total: 1000, done: false })).toBe(99)
    expect(pullPercent({ status: 'pulling abc', completed: 250, total: 1000, done: false })).toBe(25)
  })
  it('is unknown until the total is known, and 100 on success', () => {
    expect(pullPercent({ status: 'pulling manifest', done: false })).toBeNull()
    expect(pullPercent({ status: 'pulling abc', completed: 5, total: 0, done: false })).toBeNull()
    expect(pullPercent({ status: 'success', done: true })).toBe(100)
    expect(pullPercent({ status: 'error', done: true, error: 'nope' })).toBeNull()
  })
  it('never leaves 0..100', () => {
    expect(pullPercent({ status: 'x', completed: 2000, total: 1000, done: false })).toBe(100)
  })
})

describe('pullText', () => {
  it('shortens layer digests and shows the bytes', () => {
    const digest = 'pulling 8eeb52dfb3bb9aefdf9d1ef24b3bdbcfbe82238798c4b918278320b6fcef18fe'
    expect(pullText({ status: digest, completed: 1.2e9, total: 4.7e9, done: false })).toBe(
      'pulling 8eeb52dfb3bb · 1.2 GB / 4.7 GB',
    )
    expect(pullText({ status: 'verifying sha256 digest', done: false })).toBe('verifying sha256 digest')
  })
  it('says how it ended', () => {
    expect(pullText({ status: 'success', done: true })).toBe('Pulled')
    expect(pullText({ status: 'error', done: true, error: 'file does not exist' })).toBe(
      'Failed: file does not exist',
    )
  })
})

describe('labels', () => {
  it('joins provider and model', () => {
    expect(choiceLabel('ollama', 'qwen2.5-coder:7b')).toBe('Ollama · qwen2.5-coder:7b')
    expect(choiceLabel('openai-chat', 'local')).toBe('OpenAI-compatible · local')
    expect(choiceLabel(null, null)).toBe('No model')
  })
  it('treats a bare Ollama name as :latest', () => {
    expect(sameModel('llama3', 'llama3:latest')).toBe(true)
    expect(sameModel('llama3:8b', 'llama3:latest')).toBe(false)
  })
})

describe('splitBackticks', () => {
  it('marks the parts between backticks as code', () => {
    expect(splitBackticks('Start it with `ollama serve` (or open the app).')).toEqual([
      { code: false, text: 'Start it with ' },
      { code: true, text: 'ollama serve' },
      { code: false, text: ' (or open the app).' },
    ])
  })
  it('leaves an unmatched backtick as text', () => {
    expect(splitBackticks('a `b` c `d')).toEqual([
      { code: false, text: 'a ' },
      { code: true, text: 'b' },
      { code: false, text: ' c `d' },
    ])
    expect(splitBackticks('plain')).toEqual([{ code: false, text: 'plain' }])
  })
})

describe('formatPrice', () => {
  it('shows cents, and a third decimal only when it matters', () => {
    expect(formatPrice(2.5)).toBe('$2.50')
    expect(formatPrice(10)).toBe('$10.00')
    expect(formatPrice(0.15)).toBe('$0.15')
    expect(formatPrice(0.05)).toBe('$0.05')
    expect(formatPrice(0.075)).toBe('$0.075')
  })
})
