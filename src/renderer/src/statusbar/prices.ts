import type { ModelInfo, StepwiseEvent, Usage } from '../../../shared/protocol'

/**
 * The cost meter. Prices come from `models/list` (the core fills them in from resources/models.json,
 * USD per million tokens). A model without a known price costs nothing we can name: it is left out
 * and the total says it is partial; with no priced step at all there is no cost to show.
 */

export interface Price {
  inputPerMTok: number
  outputPerMTok: number
}

/** The price of `model` in a server's list, or null when the list does not price it. */
export function priceOf(models: readonly ModelInfo[], model: string): Price | null {
  const info = models.find((m) => m.name === model)
  if (!info || info.inputPerMTok === undefined || info.outputPerMTok === undefined) return null
  return { inputPerMTok: info.inputPerMTok, outputPerMTok: info.outputPerMTok }
}

export function costOf(usage: Usage, price: Price): number {
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000
}

export interface Cost {
  usd: number
  /** False when some model steps used a model with no known price (they are not counted). */
  complete: boolean
}

export interface PricedStep {
  provider: string
  model: string
  usage: Usage
}

/** The model steps of a session, with what they ran on. */
export function pricedSteps(events: readonly StepwiseEvent[]): PricedStep[] {
  return events.flatMap((e) =>
    e.type === 'assistant.message' ? [{ provider: e.provider, model: e.model, usage: e.usage }] : [],
  )
}

/** The session's cost so far; null when no step has a known price. */
export function sessionCost(
  steps: readonly PricedStep[],
  lookup: (provider: string, model: string) => Price | null,
): Cost | null {
  let usd = 0
  let priced = 0
  for (const step of steps) {
    const price = lookup(step.provider, step.model)
    if (!price) continue
    usd += costOf(step.usage, price)
    priced++
  }
  if (priced === 0) return null
  return { usd, complete: priced === steps.length }
}

/** Dollars as a meter shows them: $0.00, <$0.01, $0.42, $12.30; "≥" when partial. */
export function formatCost(cost: Cost): string {
  const amount = cost.usd > 0 && cost.usd < 0.005 ? '<$0.01' : `$${cost.usd.toFixed(2)}`
  return cost.complete ? amount : `≥ ${amount}`
}
