import { create } from 'zustand'
import type { ProviderId } from '../../../shared/protocol'

/** The picker's tabs: every provider's models at once, or one provider with its setup. */
export type PickerTab = 'all' | ProviderId

/** Whether the model picker is open, and on which tab (null: all models). */
interface PickerUi {
  open: boolean
  tab: PickerTab | null
}

export const usePickerUi = create<PickerUi>(() => ({ open: false, tab: null }))

/** Opens the model picker, e.g. from the command palette or onboarding ("Enter API key"). */
export function openModelPicker(tab?: PickerTab): void {
  usePickerUi.setState({ open: true, tab: tab ?? null })
}

export function closeModelPicker(): void {
  usePickerUi.setState({ open: false, tab: null })
}
