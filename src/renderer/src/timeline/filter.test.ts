import { describe, expect, it } from 'vitest'
import type { TimelineStep } from '../../../shared/reducer'
import { countByCategory, filterSteps, NO_FILTER, toggleCategory, type StepCategory } from './filter'
import { sessionSteps } from './testSession'

const steps = sessionSteps()
const kinds = (list: readonly TimelineStep[]): string[] => list.map((s) => s.kind)
const only = (...categories: StepCategory[]) => new Set(categories)

describe('filterSteps', () => {
  it('returns the very same array when nothing is filtered', () => {
    expect(filterSteps(steps, NO_FILTER)).toBe(steps)
    expect(filterSteps(steps, new Set())).toBe(steps)
  })

  it('shows messages as user and model steps', () => {
    expect(kinds(filterSteps(steps, only('messages')))).toEqual(['user', 'model'])
  })

  it('puts checkpoints and restores together', () => {
    expect(kinds(filterSteps(steps, only('checkpoints')))).toEqual(['checkpoint', 'restore'])
  })

  it('finds every failure under Errors: error steps, failed tools, failed checks', () => {
    const errors = filterSteps(steps, only('errors'))
    expect(kinds(errors)).toEqual(['tool', 'error', 'verify'])
    expect(errors[0]).toMatchObject({ kind: 'tool', name: 'run_command', status: 'error' })
  })

  it('shows the union of several categories, in timeline order', () => {
    expect(kinds(filterSteps(steps, only('tools', 'other')))).toEqual([
      'tool',
      'tool',
      'tool',
      'compaction',
      'finding',
      'fork',
      'verify',
    ])
  })

  it('returns the same result for the same steps and filter, a new one when either changes', () => {
    const filter = only('tools')
    const first = filterSteps(steps, filter)
    expect(filterSteps(steps, filter)).toBe(first)
    expect(filterSteps(steps.slice(), filter)).not.toBe(first)
    expect(filterSteps(steps, only('tools'))).toEqual(first)
  })
})

describe('toggleCategory', () => {
  it('adds and removes a category without touching the old filter', () => {
    const a = toggleCategory(NO_FILTER, 'tools')
    expect([...a]).toEqual(['tools'])
    expect(NO_FILTER.size).toBe(0)
    expect(toggleCategory(a, 'tools').size).toBe(0)
  })
})

describe('countByCategory', () => {
  it('counts what each chip would show', () => {
    const counts = countByCategory(steps)
    expect(counts).toEqual({ messages: 2, tools: 3, checkpoints: 2, errors: 3, other: 4 })
    for (const category of Object.keys(counts) as StepCategory[]) {
      expect(filterSteps(steps, only(category))).toHaveLength(counts[category])
    }
  })
})
