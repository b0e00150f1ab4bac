import { memo, useState } from 'react'
import type React from 'react'
import { OverviewChart } from './OverviewChart'
import './overview.css'

const HIDDEN_KEY = 'stepwise.overview.hidden'

function storedHidden(): boolean {
  try {
    return globalThis.localStorage?.getItem(HIDDEN_KEY) === '1'
  } catch {
    return false
  }
}

/**
 * The session on a time axis, above the rows: turns, model calls, tool calls and commands
 * as bars, approval waits hatched inside their call, marks for checkpoints, restores and
 * forks, a tokens chart and a files strip. Drawn on a canvas (smooth at 10,000 steps);
 * the bars are also buttons for the keyboard, screen readers and tests. In replay it is
 * the scrubber: a playhead, and later steps dimmed.
 */
function OverviewImpl(): React.JSX.Element {
  const [hidden, setHidden] = useState(storedHidden)
  const toggle = (): void => {
    setHidden(!hidden)
    try {
      globalThis.localStorage?.setItem(HIDDEN_KEY, hidden ? '0' : '1')
    } catch {
      // Storage off: the choice lasts this page only.
    }
  }
  return (
    <section className="ov" aria-label="Session overview" data-testid="timeline-overview">
      {hidden ? (
        <div className="ov-head">
          <button type="button" className="ov-link" onClick={toggle}>
            Show the overview
          </button>
        </div>
      ) : (
        <OverviewChart onHide={toggle} />
      )}
    </section>
  )
}

/** No props: it reads the store itself, so the rows' own re-renders (scrolling) never redraw it. */
export const Overview = memo(OverviewImpl)
