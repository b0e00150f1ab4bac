import { describe, expect, it } from 'vitest'
import type { ModelInfo, StepwiseEvent } from '../../../shared/protocol'
import { costOf, formatCost, priceOf, pricedSteps, sessionCost, type PricedStep } from './prices'

const models: ModelInfo[] = [
  { name: 'gpt-4.1-mini', contextWindow: 1_047_576, inputPerMTok: 0.4, outputPerMTok: 1.6 },
  { name: 'gpt-4o', contextWindow: 128_000, inputPerMTok: 2.5, outputPerMTok: 10 },
  { name: 'ft:custom', contextWindow: 128_000 },
]

const step = (provider: string, model: string, inputTokens: number, outputTokens: number): PricedStep => ({
  provider,
  model,
  usage: { inputTokens, outputTokens },
})

describe('priceOf', () => {
  it('finds the listed price of a model by its exact name', () => {
    expect(priceOf(models, 'gpt-4o')).toEqual({ inputPerMTok: 2.5, outputPerMTok: 10 })
  })
  it('has no price for an unlisted or unpriced model', () => {
    expect(priceOf(models, 'gpt-4o-2024-08-06')).toBeNull()
    expect(priceOf(models, 'ft:custom')).toBeNull()
    expect(priceOf([], 'gpt-4o')).toBeNull()
  })
})

describe('costOf', () => {
  it('prices input and output per million tokens', () => {
    // 12,000 in at $2.50/M = $0.03; 1,500 out at $10/M = $0.015.
    expect(
      costOf({ inputTokens: 12_000, outputTokens: 1_500 }, { inputPerMTok: 2.5, outputPerMTok: 10 }),
    ).toBeCloseTo(0.045, 10)
  })
})

describe('sessionCost', () => {
  const lookup = (provider: string, model: string) => (provider === 'ollama' ? null : priceOf(models, model))

  it('sums the steps, each at its own model’s price', () => {
    const cost = sessionCost(
      [step('openai', 'gpt-4o', 1_000_000, 0), step('openai', 'gpt-4.1-mini', 0, 1_000_000)],
      lookup,
    )
    expect(cost).toEqual({ usd: 2.5 + 1.6, complete: true })
  })
  it('says it is partial when some steps have no known price', () => {
    const cost = sessionCost(
      [step('ollama', 'qwen2.5-coder:7b', 5000, 500), step('openai', 'gpt-4o', 1e6, 0)],
      lookup,
    )
    expect(cost).toEqual({ usd: 2.5, complete: false })
  })
  it('has no cost when nothing is priced, rather than a made-up zero', () => {
    expect(sessionCost([step('ollama', 'llama3', 5000, 500)], lookup)).toBeNull()
    expect(sessionCost([], lookup)).toBeNull()
  })
})

describe('pricedSteps', () => {
  it('takes each assistant.message with its provider, model and usage', () => {
    const base = { sessionId: 's', ts: 0 }
    const events = [
      { ...base, seq: 0, type: 'user.message', text: 'hi' },
      {
        ...base,
        seq: 1,
        type: 'assistant.message',
        step: 1,
        text: 'hello',
        toolCalls: [],
        usage: { inputTokens: 10, outputTokens: 2 },
        durationMs: 5,
        provider: 'openai',
        model: 'gpt-4o',
      },
    ] as StepwiseEvent[]
    expect(pricedSteps(events)).toEqual([step('openai', 'gpt-4o', 10, 2)])
  })
})

describe('formatCost', () => {
  it('shows cents, and never rounds a real cost down to zero', () => {
    expect(formatCost({ usd: 0.045, complete: true })).toBe('$0.04')
    expect(formatCost({ usd: 12.3, complete: true })).toBe('$12.30')
    expect(formatCost({ usd: 0.0004, complete: true })).toBe('<$0.01')
    expect(formatCost({ usd: 0, complete: true })).toBe('$0.00')
  })
  it('marks a partial total as a lower bound', () => {
    expect(formatCost({ usd: 2.5, complete: false })).toBe('≥ $2.50')
  })
})
