import { useState } from 'react'
import type React from 'react'
import { openModelPicker } from '../models/pickerState'
import { METER_MEANS, contextLevel, meterLabel, meterPercent, meterShort } from './derive'
import { useContextReading } from './useContextReading'

/**
 * How full the model's context window is, from the last answer's `context` count; the window is
 * the one actually sent (Ollama's num_ctx). Before the first answer it shows what the system
 * prompt, tools, rules and repo map already take. "~" and the tooltip say when the count is an
 * estimate; an unknown window is said, with how to set it, rather than shown as a percentage. Its
 * "?" opens what it measures and what it reads now, in plain words (`meter-says`).
 */
export function ContextMeter(): React.JSX.Element {
  const reading = useContextReading()
  const percent = reading ? meterPercent(reading) : null
  const label = meterLabel(reading)
  const unknown = reading !== null && reading.windowTokens === null
  const [open, setOpen] = useState(false)
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
      >
        <span className="statusbar-meter-track" aria-hidden="true">
          <span className="statusbar-meter-fill" style={{ width: `${Math.min(100, percent ?? 0)}%` }} />
        </span>
        <span aria-hidden="true" data-source={reading?.source}>
          {meterShort(reading)}
        </span>
      </span>
      <button
        type="button"
        className="statusbar-item statusbar-button statusbar-meter-help"
        data-testid="meter-help"
        aria-label="What the context meter means"
        aria-expanded={open}
        aria-controls={open ? 'meter-says' : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        ?
      </button>
      {open && (
        <div id="meter-says" className="statusbar-says" data-testid="meter-says" role="note">
          <p>{METER_MEANS}</p>
          <p>{label}</p>
        </div>
      )}
      {unknown && (
        // The window is set in the model picker.
        <button
          type="button"
          className="statusbar-item statusbar-button statusbar-set-window"
          data-testid="set-window"
          onClick={() => openModelPicker()}
        >
          window unknown: set it
        </button>
      )}
    </>
  )
}
