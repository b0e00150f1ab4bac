import type React from 'react'
import { useEffectiveChoice } from './choice'
import { choiceLabel } from './format'
import { useCatalogSync } from './Onboarding'
import { PickerDialog } from './PickerDialog'
import { openModelPicker, usePickerUi } from './pickerState'
import './models.css'

/**
 * The model button for the header ("Ollama · qwen2.5-coder:7b") and the picker dialog it opens.
 * Mount it once: `openModelPicker()` (palette, onboarding) opens the same dialog.
 */
export function ModelPicker(): React.JSX.Element {
  const choice = useEffectiveChoice()
  useCatalogSync(choice)
  const open = usePickerUi((s) => s.open)
  const label = choiceLabel(choice?.provider, choice?.model)
  return (
    <>
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
      {open && <PickerDialog />}
    </>
  )
}
