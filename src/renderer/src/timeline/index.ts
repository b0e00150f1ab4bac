export { Timeline, type TimelineProps } from './Timeline'
export { TimelineFilters, type TimelineFiltersProps } from './TimelineFilters'
export { StepDetails, type StepDetailsProps } from './StepDetails'
export { Markdown, type MarkdownProps } from './Markdown'
export {
  filterSteps,
  countByCategory,
  toggleCategory,
  matchesFilter,
  categoryOf,
  NO_FILTER,
  STEP_CATEGORIES,
  CATEGORY_LABELS,
  type StepCategory,
  type TimelineFilter,
} from './filter'
export { formatTokens, formatDuration, formatTimestamp } from './format'
export { summarizeArgs } from './summary'
export { describeStep, stepStatus, type RowStatus } from './describe'
