import { lazy } from 'react'
import { DIFF_LOADING } from '../panels/loading'
import { contribute, sidePanel } from '../panels/registry'
import { selectedStep } from '../timeline/contribution'

const ReplayFiles = lazy(() => import('./ReplayFiles'))

/** Replay: the files as of the replayed step, while no step is selected. */
export const contributeReplay = (): (() => void) =>
  contribute({
    feature: 'replay',
    side: [
      sidePanel({
        id: 'replay-files',
        order: 20,
        label: 'Replay',
        fallback: DIFF_LOADING,
        show: (ctx) =>
          ctx.replayingAt !== undefined && ctx.replayingAt !== null && !selectedStep(ctx)
            ? { seq: ctx.replayingAt }
            : null,
        component: ReplayFiles,
      }),
    ],
  })
