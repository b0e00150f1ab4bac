import type React from 'react'
import { contribute, sidePanel } from './registry'
import { toast } from '../state/store'

/** What the panel shows: the open chat's number of steps. */
function StepCount({ steps }: { steps: number }): React.JSX.Element {
  return <p data-testid="step-count">This chat has {steps} steps.</p>
}

/**
 * A side panel that shows how many steps the open chat has, when nothing before it (an approval,
 * a step's details) has something to show; and `/steps`, which says the same in a toast.
 */
export const contributeStepCount = (): (() => void) =>
  contribute({
    feature: 'step-count',
    side: [
      sidePanel({
        id: 'step-count',
        order: 30,
        label: 'Step count',
        show: (ctx) => (ctx.sessionId ? { steps: ctx.view.steps.length } : null),
        component: StepCount,
      }),
    ],
    commands: [
      {
        id: 'step-count',
        slash: 'steps',
        title: 'Count steps',
        hint: 'How many steps this chat has',
        unavailable: (s) => (s.sessionId ? null : 'Open a chat first'),
        run: () => toast('info', 'See the panel on the right.'),
      },
    ],
  })
