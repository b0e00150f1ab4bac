import { createElement } from 'react'
import type React from 'react'
import { useReplayActive } from '../replay/useReplay'
import { closePanel, usePanels } from './panelState'
import { dialogPanels } from './registry'

/** Every contributed dialog the panel state has open (a live-only one not while replaying). Mount once. */
export function DialogHost(): React.JSX.Element {
  const open = usePanels((s) => s.open)
  const replaying = useReplayActive()
  const shown = dialogPanels().filter((d) => open[d.id] && !(d.liveOnly && replaying))
  return <>{shown.map((d) => createElement(d.component, { key: d.id, onClose: () => closePanel(d.id) }))}</>
}
