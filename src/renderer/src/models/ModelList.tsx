import type React from 'react'
import type { ModelInfo, ProviderGroup, ProviderId } from '../../../shared/protocol'
import { providerDescriptor } from '../../../shared/providers'
import { formatTokens } from '../timeline/format'
import { refreshCatalog } from './allModels'
import { formatGigabytes, formatPrice, providerLabel, sameModel } from './format'

interface ModelListProps {
  group: ProviderGroup
  /** Shown names only (the picker's filter, lower case); empty: all. */
  needle?: string
  /** The model in use, if it is on this provider (marked). */
  current: string | null
  onChoose(model: string): void
}

function detail(provider: ProviderId, m: ModelInfo): string {
  if (providerDescriptor(provider).wire === 'ollama')
    return [formatGigabytes(m.size), m.parameters].filter(Boolean).join(' · ')
  const parts: string[] = []
  if (m.contextWindow) parts.push(`${formatTokens(m.contextWindow)} context`)
  if (m.inputPerMTok !== undefined && m.outputPerMTok !== undefined) {
    parts.push(`${formatPrice(m.inputPerMTok)} / ${formatPrice(m.outputPerMTok)} per M tokens`)
  }
  return parts.join(' · ')
}

/** What a group says instead of models: not set up, not answering, nothing listed. */
export function groupStatus(group: ProviderGroup): string {
  const { apiKey, localServer, canPull } = providerDescriptor(group.provider)
  if (!group.configured) return apiKey === 'required' ? 'No API key yet.' : 'No server address yet.'
  if (!group.reachable)
    return localServer
      ? `Not running at ${group.baseUrl}.`
      : `${group.baseUrl} did not answer${group.error ? `: ${group.error}` : '.'}`
  if (group.models.length === 0) return canPull ? 'No models pulled yet.' : 'The server lists no models.'
  return `${group.models.length} model${group.models.length === 1 ? '' : 's'} · ${group.baseUrl}`
}

/** One provider's models from `models/catalog`; choosing one calls `onChoose`. */
export function ModelList({ group, needle = '', current, onChoose }: ModelListProps): React.JSX.Element {
  const label = providerLabel(group.provider)
  if (group.configured && !group.reachable) {
    return (
      <div className="model-picker-problem" role="alert">
        <p>
          {label}: {groupStatus(group)}
        </p>
        <button
          type="button"
          className="ui-button small"
          data-testid={`retry-${group.provider}`}
          onClick={() => void refreshCatalog()}
        >
          Retry
        </button>
      </div>
    )
  }
  if (group.models.length === 0) return <p className="ui-note">{groupStatus(group)}</p>
  const shown = needle ? group.models.filter((m) => m.name.toLowerCase().includes(needle)) : group.models
  if (shown.length === 0) return <p className="ui-note">No {label} model matches.</p>
  return (
    <ul className="model-picker-list" aria-label={`${label} models`}>
      {shown.map((m) => {
        const selected = current !== null && sameModel(m.name, current)
        const info = detail(group.provider, m)
        return (
          <li key={m.name}>
            <button
              type="button"
              className={`model-picker-item ${selected ? 'selected' : ''}`}
              aria-pressed={selected}
              data-testid="model-option"
              data-model={m.name}
              data-provider={group.provider}
              onClick={() => onChoose(m.name)}
            >
              <span className="model-picker-item-name">{m.name}</span>
              {info && <span className="model-picker-item-detail">{info}</span>}
            </button>
          </li>
        )
      })}
    </ul>
  )
}
