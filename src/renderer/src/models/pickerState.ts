import { create } from 'zustand'
import type { ProviderId } from '../../../shared/protocol'

/** Whether the model picker is open, and on which provider's tab (null: the current one). */
interface PickerUi {
  open: boolean
  tab: ProviderId | null
}

export const usePickerUi = create<PickerUi>(() => ({ open: false, tab: null }))

/** Opens the model picker, e.g. from the command palette or onboarding ("Enter API key"). */
export function openModelPicker(tab?: ProviderId): void {
  usePickerUi.setState({ open: true, tab: tab ?? null })
}

export function closeModelPicker(): void {
  usePickerUi.setState({ open: false, tab: null })
}
