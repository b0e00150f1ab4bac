import type React from 'react'
import { useMemo } from 'react'
import { useApp } from '../state/store'
import { contextLabel, contextLevel, contextUse, percentUsed } from './derive'

/** How full the model's context window is, from the last answer's `context` count. */
export function ContextMeter(): React.JSX.Element {
  const events = useApp((s) => s.events)
  const use = useMemo(() => contextUse(events), [events])
  const percent = use ? percentUsed(use) : null
  const label = contextLabel(use)
  return (
    <span
      className={`statusbar-meter ${percent === null ? 'empty' : contextLevel(percent)}`}
      data-testid="context-meter"
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent ?? 0}
      aria-live="off"
      title={label}
    >
      <span className="statusbar-meter-track" aria-hidden="true">
        <span className="statusbar-meter-fill" style={{ width: `${Math.min(100, percent ?? 0)}%` }} />
      </span>
      <span aria-hidden="true">{percent === null ? '–' : `${percent}%`}</span>
    </span>
  )
}
