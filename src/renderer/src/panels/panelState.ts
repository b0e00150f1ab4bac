import { create } from 'zustand'

/**
 * Which dialogs are open, one state for every feature's (the settings, the MCP servers, the model
 * picker, Help…): `openPanel('settings')` shows what the registry holds under that id. Several
 * may be open at once (the palette over nothing, Settings opening MCP servers).
 */
interface PanelState {
  open: Readonly<Record<string, true>>
}

export const usePanels = create<PanelState>(() => ({ open: {} }))

export function openPanel(id: string): void {
  usePanels.setState((s) => (s.open[id] ? s : { open: { ...s.open, [id]: true } }))
}

export function closePanel(id: string): void {
  usePanels.setState((s) => {
    if (!s.open[id]) return s
    const { [id]: _closed, ...rest } = s.open
    return { open: rest }
  })
}

export function togglePanel(id: string): void {
  if (isPanelOpen(id)) closePanel(id)
  else openPanel(id)
}

export function isPanelOpen(id: string): boolean {
  return usePanels.getState().open[id] === true
}

export function usePanelOpen(id: string): boolean {
  return usePanels((s) => s.open[id] === true)
}
