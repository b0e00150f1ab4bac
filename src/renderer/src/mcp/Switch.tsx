import type React from 'react'

interface SwitchProps {
  /** The accessible name: what turning it on does ("Enable tool echo"). */
  label: string
  checked: boolean
  disabled?: boolean
  onChange(checked: boolean): void
  testId?: string
  /** Shown beside the track; the accessible name stays `label`. */
  text?: string
}

/** An on/off switch: a button with `role="switch"`, so Space and Enter toggle it. */
export function Switch({ label, checked, disabled, onChange, testId, text }: SwitchProps): React.JSX.Element {
  return (
    <button
      type="button"
      role="switch"
      className="mcp-switch"
      aria-checked={checked}
      aria-label={label}
      title={label}
      disabled={disabled}
      data-testid={testId}
      onClick={() => onChange(!checked)}
    >
      <span className="mcp-switch-track" aria-hidden="true">
        <span className="mcp-switch-thumb" />
      </span>
      {text && <span className="mcp-switch-text">{text}</span>}
    </button>
  )
}
