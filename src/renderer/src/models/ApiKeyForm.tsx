import type React from 'react'
import { useId, useState, type FormEvent } from 'react'
import type { ProviderId } from '../../../shared/protocol'
import { providerDescriptor } from '../../../shared/providers'
import { invoke, toast, useApp } from '../state/store'
import { refreshCatalog } from './allModels'

interface ApiKeyFormProps {
  provider: ProviderId
  optional?: boolean
  /** A key is already kept for this provider (said, never shown). */
  keySet?: boolean
}

/** An API key, sent once with `credentials/set` and never shown again (the field is cleared). */
export function ApiKeyForm({ provider, optional, keySet }: ApiKeyFormProps): React.JSX.Element {
  const id = useId()
  const noteId = useId()
  const [key, setKey] = useState('')
  const [saving, setSaving] = useState(false)
  // The host says how it keeps keys (the OS keychain, or a 0600 file): no claim made here.
  const storage = useApp((s) => s.info?.keyStorage)

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault()
    const value = key.trim()
    if (!value || saving) return
    setSaving(true)
    try {
      await invoke('credentials/set', { provider, key: value })
      setKey('')
      toast('info', 'API key saved.')
      await refreshCatalog()
    } catch {
      // Toasted by invoke; the key stays in the field to fix.
    } finally {
      setSaving(false)
    }
  }

  return (
    <form className="model-picker-section" onSubmit={(e) => void submit(e)} aria-label="API key">
      <label className="ui-label" htmlFor={id}>
        API key{optional ? ' (if the server needs one)' : ''}
        {keySet ? ' · one is saved' : ''}
      </label>
      <div className="ui-row">
        <input
          id={id}
          className="ui-input"
          type="password"
          data-testid="api-key"
          value={key}
          autoComplete="off"
          spellCheck={false}
          placeholder={
            keySet ? 'Enter a new key to replace it' : (providerDescriptor(provider).keyHint ?? '')
          }
          aria-describedby={noteId}
          onChange={(e) => setKey(e.target.value)}
        />
        <button
          type="submit"
          className="ui-button"
          data-testid="save-api-key"
          disabled={!key.trim() || saving}
        >
          Save key
        </button>
      </div>
      <p id={noteId} className="ui-note">
        {storage ?? 'Kept on this machine; it is never shown again.'}
      </p>
    </form>
  )
}
