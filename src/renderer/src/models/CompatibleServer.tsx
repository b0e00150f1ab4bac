import type React from 'react'
import { useId, useState, type FormEvent } from 'react'
import { ApiKeyForm } from './ApiKeyForm'
import { loadModels } from './catalog'
import { ModelIdForm } from './ModelIdForm'
import { ModelList } from './ModelList'
import { isHttpUrl } from './stored'

interface CompatibleServerProps {
  initialBaseUrl: string
  current: string | null
  onChoose(model: string, baseUrl: string): void
}

/** An OpenAI-compatible server (LM Studio, vLLM, llama.cpp…): its base URL, key and models. */
export function CompatibleServer({
  initialBaseUrl,
  current,
  onChoose,
}: CompatibleServerProps): React.JSX.Element {
  const id = useId()
  const errorId = useId()
  const [draft, setDraft] = useState(initialBaseUrl)
  const [baseUrl, setBaseUrl] = useState(isHttpUrl(initialBaseUrl) ? initialBaseUrl : '')
  const [error, setError] = useState<string | null>(null)

  const connect = (event: FormEvent): void => {
    event.preventDefault()
    const url = draft.trim().replace(/\/+$/, '')
    if (!isHttpUrl(url)) {
      setError('Enter a URL starting with http:// or https://, e.g. http://localhost:1234/v1')
      return
    }
    setError(null)
    if (url === baseUrl) void loadModels('openai-chat', url, true)
    setBaseUrl(url)
  }

  return (
    <>
      <form className="model-picker-section" onSubmit={connect} aria-label="Server">
        <label className="ui-label" htmlFor={id}>
          Base URL
        </label>
        <div className="ui-row">
          <input
            id={id}
            className="ui-input"
            data-testid="base-url"
            value={draft}
            inputMode="url"
            spellCheck={false}
            autoComplete="off"
            placeholder="http://localhost:1234/v1"
            aria-invalid={error !== null}
            aria-describedby={error ? errorId : undefined}
            onChange={(e) => setDraft(e.target.value)}
          />
          <button type="submit" className="ui-button">
            Connect
          </button>
        </div>
        {error && (
          <p id={errorId} className="model-picker-error" role="alert">
            {error}
          </p>
        )}
      </form>
      {baseUrl ? (
        <>
          <ApiKeyForm provider="openai-chat" baseUrl={baseUrl} optional />
          <ModelList
            provider="openai-chat"
            baseUrl={baseUrl}
            current={current}
            onChoose={(model) => onChoose(model, baseUrl)}
          />
          <ModelIdForm onUse={(model) => onChoose(model, baseUrl)} />
        </>
      ) : (
        <p className="ui-note">Any server that speaks the OpenAI chat completions API.</p>
      )}
    </>
  )
}
