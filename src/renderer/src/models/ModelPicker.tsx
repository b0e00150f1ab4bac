import type React from 'react'
import { useEffectiveChoice } from './choice'
import { choiceLabel } from './format'
import { useCatalogSync } from './Onboarding'
import { usePanelOpen } from '../panels/panelState'
import { MODEL_PICKER_PANEL, openModelPicker } from './pickerState'
import './models.css'

/**
 * The model button for the header ("Ollama · qwen2.5-coder:7b"). It opens the picker dialog, a
 * panel (models/contribution.tsx) that `openModelPicker()` (palette, onboarding) opens too.
 */
export function ModelPicker(): React.JSX.Element {
  const choice = useEffectiveChoice()
  useCatalogSync(choice)
  const open = usePanelOpen(MODEL_PICKER_PANEL)
  const label = choiceLabel(choice?.provider, choice?.model)
  return (
    <button
      type="button"
      className="model-picker-trigger"
      data-testid="model-picker"
      aria-haspopup="dialog"
      aria-expanded={open}
      aria-label={`Model: ${label}`}
      title="Switch model"
      onClick={() => openModelPicker()}
    >
      <span className="model-picker-dot" aria-hidden="true" />
      <span className="model-picker-trigger-text">{label}</span>
      <span className="model-picker-caret" aria-hidden="true">
        ▾
      </span>
    </button>
  )
}
