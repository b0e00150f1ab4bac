import type { TimelineStep } from '../../../shared/reducer'
import { contribute, sidePanel, type SideContext } from '../panels/registry'
import { select } from '../state/store'
import { StepDetails } from './StepDetails'

/** The selected step of the displayed session, if any. */
export function selectedStep(ctx: SideContext): TimelineStep | null {
  if (ctx.selectedSeq === null) return null
  return ctx.view.steps.find((s) => s.seq === ctx.selectedSeq) ?? null
}

const closeDetails = (): void => select(null)

/** The timeline: the selected step's details beside it. */
export const contributeTimeline = (): (() => void) =>
  contribute({
    feature: 'timeline',
    side: [
      sidePanel({
        id: 'step-details',
        order: 10,
        label: 'Step details',
        show: (ctx) => {
          const step = selectedStep(ctx)
          return step ? { step, onClose: closeDetails } : null
        },
        component: StepDetails,
      }),
    ],
  })
