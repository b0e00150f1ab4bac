import { closePanel, openPanel } from '../panels/panelState'

/** The settings dialog's id in the panel state (settings/contribution.tsx contributes it). */
export const SETTINGS_PANEL = 'settings'

export function openSettings(): void {
  openPanel(SETTINGS_PANEL)
}

export function closeSettings(): void {
  closePanel(SETTINGS_PANEL)
}
