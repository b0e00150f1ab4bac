import { create } from 'zustand'

/** Whether the settings dialog is open. */
export const useSettingsUi = create<{ open: boolean }>(() => ({ open: false }))

export function openSettings(): void {
  useSettingsUi.setState({ open: true })
}

export function closeSettings(): void {
  useSettingsUi.setState({ open: false })
}
