import type React from 'react'
import { useMemo } from 'react'
import { useApp } from '../state/store'
import { contextLabel, contextLevel, contextShort, contextUse, percentUsed } from './derive'

/**
 * How full the model's context window is, from the last answer's `context` count; the window is
 * the one actually sent (Ollama's num_ctx). "~" and the tooltip say when the count is our estimate.
 */
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
      <span aria-hidden="true" data-source={use?.source}>
        {contextShort(use)}
      </span>
    </span>
  )
}
