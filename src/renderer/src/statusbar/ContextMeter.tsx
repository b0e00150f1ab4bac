import type React from 'react'
import { openModelPicker } from '../models/pickerState'
import { contextLevel, meterLabel, meterPercent, meterShort } from './derive'
import { useContextReading } from './useContextReading'

/**
 * How full the model's context window is, from the last answer's `context` count; the window is
 * the one actually sent (Ollama's num_ctx). Before the first answer it shows what the system
 * prompt, tools, rules and repo map already take. "~" and the tooltip say when the count is an
 * estimate; an unknown window is said, with how to set it, rather than shown as a percentage.
 */
export function ContextMeter(): React.JSX.Element {
  const reading = useContextReading()
  const percent = reading ? meterPercent(reading) : null
  const label = meterLabel(reading)
  const unknown = reading !== null && reading.windowTokens === null
  return (
    <>
      <span
        className={`statusbar-meter ${percent === null ? 'empty' : contextLevel(percent)}`}
        data-window={
          reading ? (reading.windowTokens === null ? 'unknown' : String(reading.windowTokens)) : undefined
        }
        data-testid="context-meter"
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent ?? 0}
        aria-valuetext={percent === null ? (reading ? 'window unknown' : 'not measured yet') : `${percent}%`}
        aria-live="off"
        title={label}
      >
        <span className="statusbar-meter-track" aria-hidden="true">
          <span className="statusbar-meter-fill" style={{ width: `${Math.min(100, percent ?? 0)}%` }} />
        </span>
        <span aria-hidden="true" data-source={reading?.source}>
          {meterShort(reading)}
        </span>
      </span>
      {unknown && (
        // The window is set in the model picker (or with `serve --num-ctx`).
        <button
          type="button"
          className="statusbar-item statusbar-button statusbar-set-window"
          data-testid="set-window"
          title={reading.baseline?.fix ?? 'Set the context window'}
          onClick={() => openModelPicker()}
        >
          window unknown: set it
        </button>
      )}
    </>
  )
}
