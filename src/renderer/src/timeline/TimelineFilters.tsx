import type React from 'react'
import {
  CATEGORY_LABELS,
  NO_FILTER,
  STEP_CATEGORIES,
  toggleCategory,
  type StepCategory,
  type TimelineFilter,
} from './filter'
import './filters.css'

export interface TimelineFiltersProps {
  filter: TimelineFilter
  onChange(filter: TimelineFilter): void
  /** Optional counts per chip, e.g. from `countByCategory(steps)`. */
  counts?: Readonly<Record<StepCategory, number>>
}

/**
 * Toggle chips over the timeline. Pressing chips narrows the list to those kinds;
 * with none pressed ("All") every step shows.
 */
export function TimelineFilters({ filter, onChange, counts }: TimelineFiltersProps): React.JSX.Element {
  return (
    <div className="tlf" role="group" aria-label="Filter steps">
      <button
        type="button"
        className="tlf-chip"
        aria-pressed={filter.size === 0}
        onClick={() => onChange(NO_FILTER)}
      >
        All
      </button>
      {STEP_CATEGORIES.map((category) => (
        <button
          key={category}
          type="button"
          className="tlf-chip"
          aria-pressed={filter.has(category)}
          data-category={category}
          onClick={() => onChange(toggleCategory(filter, category))}
        >
          {CATEGORY_LABELS[category]}
          {counts && <span className="tlf-count">{counts[category]}</span>}
        </button>
      ))}
    </div>
  )
}
