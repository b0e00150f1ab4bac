import type React from 'react'
import { useId, useState, type FormEvent } from 'react'
import type { ProviderId } from '../../../shared/protocol'
import { providerDescriptor } from '../../../shared/providers'
import { saveSettings, toast, useApp } from '../state/store'
import { parseModelOptions, type DraftErrors } from '../settings/form'

interface Draft {
  numCtx: string
  maxNumCtx: string
  temperature: string
}

const text = (n: number | undefined): string => (n === undefined ? '' : String(n))

/**
 * The model's window and temperature, under the picker's model list: the same stored
 * settings the Settings dialog edits, applied from the next turn to every provider.
 * `maxNumCtx` only matters to Ollama, so only its tab shows it.
 */
export function ModelOptionsForm({ provider }: { provider: ProviderId }): React.JSX.Element {
  const ids = useId()
  const stored = useApp((s) => s.settings?.modelOptions)
  const [draft, setDraft] = useState<Draft>(() => ({
    numCtx: text(stored?.numCtx),
    maxNumCtx: text(stored?.maxNumCtx),
    temperature: text(stored?.temperature),
  }))
  const [errors, setErrors] = useState<DraftErrors>({})
  const [saving, setSaving] = useState(false)
  // num_ctx and its automatic cap are Ollama's API; other servers fix their window themselves.
  const ollama = providerDescriptor(provider).wire === 'ollama'

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault()
    const parsed = parseModelOptions(draft)
    if (!parsed.ok) {
      setErrors(parsed.errors)
      return
    }
    setErrors({})
    setSaving(true)
    try {
      await saveSettings({ modelOptions: parsed.options })
      toast('info', 'Window and temperature saved; they apply from the next turn.')
    } catch {
      // Toasted by invoke; the fields keep what was typed.
    } finally {
      setSaving(false)
    }
  }

  const input = (key: keyof Draft, label: string, placeholder: string, mode: 'numeric' | 'decimal') => (
    <div>
      <label className="ui-label" htmlFor={`${ids}-${key}`}>
        {label}
      </label>
      <input
        id={`${ids}-${key}`}
        className="ui-input"
        data-testid={`model-option-${key}`}
        inputMode={mode}
        placeholder={placeholder}
        value={draft[key]}
        aria-invalid={errors[key] !== undefined}
        aria-describedby={errors[key] ? `${ids}-${key}-error` : undefined}
        onChange={(e) => setDraft((d) => ({ ...d, [key]: e.target.value }))}
      />
      {errors[key] && (
        <p id={`${ids}-${key}-error`} className="settings-error">
          {errors[key]}
        </p>
      )}
    </div>
  )

  return (
    <form
      className="model-picker-section model-options"
      onSubmit={(e) => void submit(e)}
      aria-label="Window and temperature"
      data-testid="model-options"
      noValidate
    >
      <div className={`model-options-fields${ollama ? ' three' : ''}`}>
        {input('numCtx', ollama ? 'Context window (num_ctx)' : 'Context window (tokens)', 'auto', 'numeric')}
        {ollama && input('maxNumCtx', 'Largest automatic window', '32768', 'numeric')}
        {input('temperature', 'Temperature', 'server default', 'decimal')}
      </div>
      <div className="ui-row">
        <button type="submit" className="ui-button small" data-testid="model-options-save" disabled={saving}>
          Save
        </button>
        <p className="ui-note">
          {ollama
            ? "Empty window: the model's own length, up to the largest automatic window. 8,192 or less gets a compact prompt."
            : "The server fixes its window: enter its size so Stepwise stays within it (empty: Stepwise's model table)."}
        </p>
      </div>
    </form>
  )
}
