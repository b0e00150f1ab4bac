import { create } from 'zustand'
import type { ProviderId } from '../../../shared/protocol'
import { closePanel, openPanel } from '../panels/panelState'

/** The picker's tabs: every provider's models at once, or one provider with its setup. */
export type PickerTab = 'all' | ProviderId

/** The model picker's id in the panel state (models/contribution.tsx contributes it). */
export const MODEL_PICKER_PANEL = 'model-picker'

/** The tab the picker opens on (null: all models); whether it is open is the panel state's. */
export const usePickerUi = create<{ tab: PickerTab | null }>(() => ({ tab: null }))

/** Opens the model picker, e.g. from the command palette or onboarding ("Enter API key"). */
export function openModelPicker(tab?: PickerTab): void {
  usePickerUi.setState({ tab: tab ?? null })
  openPanel(MODEL_PICKER_PANEL)
}

export function closeModelPicker(): void {
  closePanel(MODEL_PICKER_PANEL)
  usePickerUi.setState({ tab: null })
}
