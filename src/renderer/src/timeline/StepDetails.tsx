import { useId } from 'react'
import type React from 'react'
import type { TimelineStep } from '../../../shared/reducer'
import { StepBody } from './detailBodies'
import { describeStep, toolTitle } from './describe'
import { formatTimestamp } from './format'
import { useStepNumberAt } from '../replay/stepNumbers'
import './details.css'

export interface StepDetailsProps {
  step: TimelineStep | null
  onClose(): void
}

function heading(step: TimelineStep): string {
  switch (step.kind) {
    case 'user':
      return 'Your message'
    case 'tool':
      return `Tool · ${toolTitle(step)}`
    case 'error':
      return 'Error'
    case 'finding':
      return 'Review finding'
    default:
      return describeStep(step).title
  }
}

/** The step's number, as the replay bar, `/rewind N` and the CLI give it. */
function StepNumber({ seq }: { seq: number }): React.JSX.Element {
  return <>{useStepNumberAt(seq)}</>
}

/** The details pane: everything the session recorded about one step. Escape closes it. */
export function StepDetails({ step, onClose }: StepDetailsProps): React.JSX.Element {
  const titleId = useId()
  if (!step) {
    return (
      <section className="sd sd-empty" aria-label="Step details">
        <p className="sd-note">Select a step to see its details.</p>
      </section>
    )
  }
  const onKeyDown = (e: React.KeyboardEvent): void => {
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault()
      onClose()
    }
  }
  return (
    <section
      className={`sd sd-${step.kind}`}
      aria-labelledby={titleId}
      data-testid="step-details"
      data-kind={step.kind}
      data-seq={step.seq}
      onKeyDown={onKeyDown}
    >
      <header className="sd-head">
        <div className="sd-heading">
          <h2 id={titleId}>{heading(step)}</h2>
          <p className="sd-sub">
            step <StepNumber seq={step.seq} /> ·{' '}
            <time dateTime={new Date(step.ts).toISOString()}>{formatTimestamp(step.ts)}</time>
          </p>
        </div>
        <button type="button" className="sd-close" aria-label="Close details" onClick={onClose}>
          <span aria-hidden="true">×</span>
        </button>
      </header>
      <div className="sd-body">
        <StepBody key={step.seq} step={step} />
      </div>
    </section>
  )
}
