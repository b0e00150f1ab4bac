import type React from 'react'
import { useEffect, useId, useState } from 'react'
import type { ModelInfo, ProviderId } from '../../../shared/protocol'
import { useApp } from '../state/store'
import { formatTokens } from '../timeline/format'
import { loadModels, useCatalogEntry } from './catalog'
import { formatGigabytes, formatPrice, providerLabel, sameModel } from './format'

interface ModelListProps {
  provider: ProviderId
  baseUrl?: string
  /** The model in use for this provider (marked), if any. */
  current: string | null
  onChoose(model: string): void
}

const FILTER_FROM = 8

function detail(provider: ProviderId, m: ModelInfo): string {
  if (provider === 'ollama') return [formatGigabytes(m.size), m.parameters].filter(Boolean).join(' · ')
  const parts: string[] = []
  if (m.contextWindow) parts.push(`${formatTokens(m.contextWindow)} context`)
  if (m.inputPerMTok !== undefined && m.outputPerMTok !== undefined) {
    parts.push(`${formatPrice(m.inputPerMTok)} / ${formatPrice(m.outputPerMTok)} per M tokens`)
  }
  return parts.join(' · ')
}

/** The models a server offers, from `models/list`; choosing one calls `onChoose`. */
export function ModelList({ provider, baseUrl, current, onChoose }: ModelListProps): React.JSX.Element {
  const entry = useCatalogEntry(provider, baseUrl)
  const connected = useApp((s) => s.info !== null)
  const [filter, setFilter] = useState('')
  const filterId = useId()

  useEffect(() => {
    if (connected) void loadModels(provider, baseUrl)
  }, [provider, baseUrl, connected])

  if (!entry || (entry.loading && entry.models.length === 0)) {
    return <p className="ui-note">Loading models…</p>
  }
  if (!entry.reachable) {
    return (
      <div className="model-picker-problem" role="alert">
        <p>
          Could not list the models of {providerLabel(provider)}
          {entry.error ? `: ${entry.error}` : '.'}
        </p>
        <button
          type="button"
          className="ui-button small"
          onClick={() => void loadModels(provider, baseUrl, true)}
        >
          Retry
        </button>
      </div>
    )
  }
  if (entry.models.length === 0) {
    return (
      <p className="ui-note">
        {provider === 'ollama' ? 'No models pulled yet: pull one below.' : 'The server lists no models.'}
      </p>
    )
  }

  const needle = filter.trim().toLowerCase()
  const shown = needle ? entry.models.filter((m) => m.name.toLowerCase().includes(needle)) : entry.models
  return (
    <div className="model-picker-list-wrap">
      {entry.models.length >= FILTER_FROM && (
        <div>
          <label className="ui-label" htmlFor={filterId}>
            Filter models
          </label>
          <input
            id={filterId}
            className="ui-input"
            type="search"
            value={filter}
            placeholder="e.g. mini"
            onChange={(e) => setFilter(e.target.value)}
          />
        </div>
      )}
      <ul
        className="model-picker-list"
        aria-label={`${providerLabel(provider)} models`}
        aria-busy={entry.loading}
      >
        {shown.map((m) => {
          const selected = current !== null && sameModel(m.name, current)
          const info = detail(provider, m)
          return (
            <li key={m.name}>
              <button
                type="button"
                className={`model-picker-item ${selected ? 'selected' : ''}`}
                aria-pressed={selected}
                data-testid="model-option"
                data-model={m.name}
                onClick={() => onChoose(m.name)}
              >
                <span className="model-picker-item-name">{m.name}</span>
                {info && <span className="model-picker-item-detail">{info}</span>}
              </button>
            </li>
          )
        })}
        {shown.length === 0 && <li className="ui-note">No model matches “{filter}”.</li>}
      </ul>
    </div>
  )
}
