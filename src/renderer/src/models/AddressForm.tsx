import type React from 'react'
import { useId, useState, type FormEvent } from 'react'
import type { ProviderId } from '../../../shared/protocol'
import { providerDescriptor } from '../../../shared/providers'
import { setProviderAddress } from './allModels'
import { errorMessage } from '../../../shared/errors'

interface AddressFormProps {
  provider: ProviderId
  /** The address in use ('' when none). */
  value: string
  /** A Retry beside Save (the setup card's Ollama row). */
  onRetry?: () => void
}

/** A server on this machine has an address and a default; any other a base URL to connect to. */
function textFor(provider: ProviderId): {
  label: string
  placeholder: string
  button: string
  testId: string
} {
  const { label, localServer, defaultBaseUrl } = providerDescriptor(provider)
  return localServer
    ? {
        label: `${label} address`,
        placeholder: defaultBaseUrl ?? '',
        button: 'Save',
        testId: `${provider}-address`,
      }
    : { label: 'Base URL', placeholder: 'http://localhost:1234/v1', button: 'Connect', testId: 'base-url' }
}

/**
 * A provider's server address, remembered by the core per provider (`providers/set`), so a
 * switch to another provider and back keeps it. The core says what is wrong with a bad one.
 */
export function AddressForm({ provider, value, onRetry }: AddressFormProps): React.JSX.Element {
  const id = useId()
  const errorId = useId()
  const [draft, setDraft] = useState(value)
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const text = textFor(provider)

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault()
    if (!draft.trim() || saving) return
    setSaving(true)
    try {
      const saved = await setProviderAddress(provider, draft)
      setDraft(saved)
      setError(null)
    } catch (err) {
      setError(errorMessage(err))
    } finally {
      setSaving(false)
    }
  }

  return (
    <form
      className="model-picker-section"
      onSubmit={(e) => void submit(e)}
      aria-label={text.label}
      data-testid={`address-${provider}`}
    >
      <label className="ui-label" htmlFor={id}>
        {text.label}
      </label>
      <div className="ui-row">
        <input
          id={id}
          className="ui-input"
          data-testid={text.testId}
          value={draft}
          inputMode="url"
          spellCheck={false}
          autoComplete="off"
          placeholder={text.placeholder}
          aria-invalid={error !== null}
          aria-describedby={error ? errorId : undefined}
          onChange={(e) => setDraft(e.target.value)}
        />
        <button type="submit" className="ui-button" disabled={!draft.trim() || saving}>
          {text.button}
        </button>
        {onRetry && (
          <button type="button" className="ui-button" data-testid="setup-retry" onClick={onRetry}>
            Retry
          </button>
        )}
      </div>
      {error && (
        <p id={errorId} className="model-picker-error" role="alert">
          {error}
        </p>
      )}
    </form>
  )
}
