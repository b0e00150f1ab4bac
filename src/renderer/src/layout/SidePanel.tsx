import { Suspense } from 'react'
import type React from 'react'
import { sidePanels, type SideContext } from '../panels/registry'
import { useDisplayedView, useReplaySeq } from '../replay/useReplay'
import { useApp } from '../state/store'

/**
 * Right of the timeline: the first side panel of the registry (panels/registry.ts) with something
 * to show — the oldest waiting approval, else the selected step's details, else, while replaying,
 * the files as of the replayed step.
 */
export function SidePanel(): React.JSX.Element | null {
  return sidePanelFor({
    view: useDisplayedView(),
    replayingAt: useReplaySeq(),
    approvals: useApp((s) => s.approvals),
    sessionId: useApp((s) => s.sessionId),
    selectedSeq: useApp((s) => s.selectedSeq),
  })
}

/** The `<aside>` of the first contributed side panel that has something to show in `ctx`, or null. */
export function sidePanelFor(ctx: SideContext): React.JSX.Element | null {
  for (const panel of sidePanels()) {
    const element = panel.element(ctx)
    if (!element) continue
    return (
      <aside
        key={panel.id}
        className={panel.className ? `side-panel ${panel.className}` : 'side-panel'}
        aria-label={panel.label}
      >
        {panel.fallback === undefined ? element : <Suspense fallback={panel.fallback}>{element}</Suspense>}
      </aside>
    )
  }
  return null
}
