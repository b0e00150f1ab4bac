import type React from 'react'
import { formatDuration } from '../format'

export interface OverviewHeaderProps {
  brush: { from: number; to: number } | null
  /** A zoom factor (< 1 in, > 1 out), or 0 to fit the whole session. */
  onZoom(factor: number): void
  onClearBrush(): void
  onHide(): void
}

const LEGEND = [
  ['model', 'model'],
  ['tool', 'tool'],
  ['command', 'command'],
  ['wait', 'approval wait'],
  ['error', 'failed'],
  ['rejected', 'rejected'],
] as const

function clock(ts: number): string {
  const d = new Date(ts)
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':')
}

/** The overview's title line: legend, zoom buttons, the brushed range with its clear button, hide. */
export function OverviewHeader({
  brush,
  onZoom,
  onClearBrush,
  onHide,
}: OverviewHeaderProps): React.JSX.Element {
  return (
    <div className="ov-head">
      <span className="ov-title">Overview</span>
      <ul className="ov-legend" aria-label="Colours">
        {LEGEND.map(([key, text]) => (
          <li key={key}>
            <span className={`ov-swatch ov-sw-${key}`} aria-hidden="true" />
            {text}
          </li>
        ))}
      </ul>
      {brush && (
        <span className="ov-brush" data-testid="overview-brush">
          Rows from {clock(brush.from)} for {formatDuration(brush.to - brush.from)}
          <button type="button" className="ov-link" onClick={onClearBrush} aria-label="Show all rows (Esc)">
            ✕
          </button>
        </span>
      )}
      <span className="ov-tools">
        <button type="button" className="ov-icon" onClick={() => onZoom(2)} aria-label="Zoom out (−)">
          −
        </button>
        <button type="button" className="ov-icon" onClick={() => onZoom(0.5)} aria-label="Zoom in (+)">
          +
        </button>
        <button
          type="button"
          className="ov-icon"
          onClick={() => onZoom(0)}
          aria-label="Fit the whole session (0)"
        >
          ⤢
        </button>
        <button type="button" className="ov-link" onClick={onHide}>
          Hide
        </button>
      </span>
    </div>
  )
}
