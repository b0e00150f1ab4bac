import type { TimelineStep } from '../../../shared/reducer'

/*
 * Filtering the timeline by kind. A filter is the set of categories to show; the
 * empty set shows everything. A step can belong to two categories: a failed tool
 * call is both a tool and an error, a failed check both "other" and an error, so
 * "Errors" alone finds every failure.
 */

export const STEP_CATEGORIES = ['messages', 'tools', 'checkpoints', 'errors', 'other'] as const
export type StepCategory = (typeof STEP_CATEGORIES)[number]

/** The categories to show; empty means no filter. */
export type TimelineFilter = ReadonlySet<StepCategory>

export const NO_FILTER: TimelineFilter = new Set<StepCategory>()

export const CATEGORY_LABELS: Record<StepCategory, string> = {
  messages: 'Messages',
  tools: 'Tools',
  checkpoints: 'Checkpoints',
  errors: 'Errors',
  other: 'Other',
}

/** The main category of a step's kind. */
export function categoryOf(step: TimelineStep): StepCategory {
  switch (step.kind) {
    case 'user':
    case 'model':
      return 'messages'
    case 'tool':
      return 'tools'
    case 'checkpoint':
    case 'restore':
      return 'checkpoints'
    case 'error':
    case 'unparsed-call':
      return 'errors'
    case 'compaction':
    case 'finding':
    case 'fork':
    case 'switch':
    case 'verify':
    case 'finish':
      return 'other'
  }
}

/** True for a step that reports a failure besides its main category. */
function isFailure(step: TimelineStep): boolean {
  return (
    (step.kind === 'tool' && step.status === 'error') ||
    (step.kind === 'verify' && !step.passed) ||
    (step.kind === 'finish' && step.reason === 'error')
  )
}

export function matchesFilter(step: TimelineStep, filter: TimelineFilter): boolean {
  if (filter.size === 0) return true
  return filter.has(categoryOf(step)) || (filter.has('errors') && isFailure(step))
}

let last: { steps: readonly TimelineStep[]; filter: TimelineFilter; result: readonly TimelineStep[] } | null =
  null

/**
 * The steps the filter shows. Without a filter it returns `steps` itself, and for the
 * same `steps` and `filter` as the previous call the same result, so memoised children
 * see no change.
 */
export function filterSteps(steps: readonly TimelineStep[], filter: TimelineFilter): readonly TimelineStep[] {
  if (filter.size === 0) return steps
  if (last && last.steps === steps && last.filter === filter) return last.result
  const result = steps.filter((step) => matchesFilter(step, filter))
  last = { steps, filter, result }
  return result
}

/** A new filter with `category` switched on or off. */
export function toggleCategory(filter: TimelineFilter, category: StepCategory): TimelineFilter {
  const next = new Set(filter)
  if (next.has(category)) next.delete(category)
  else next.add(category)
  return next
}

/** How many steps each chip would show. */
export function countByCategory(steps: readonly TimelineStep[]): Record<StepCategory, number> {
  const counts: Record<StepCategory, number> = { messages: 0, tools: 0, checkpoints: 0, errors: 0, other: 0 }
  for (const step of steps) {
    counts[categoryOf(step)]++
    if (isFailure(step)) counts.errors++
  }
  return counts
}
