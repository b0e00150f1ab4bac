import type React from 'react'
import { useEffect, useId, useState } from 'react'
import type { ProviderGroup, ProviderId } from '../../../shared/protocol'
import { providerDescriptor } from '../../../shared/providers'
import { Dialog } from '../palette/Dialog'
import { useApp } from '../state/store'
import { AddressForm } from './AddressForm'
import { groupOf, refreshCatalog, useAllModels } from './allModels'
import { ApiKeyForm } from './ApiKeyForm'
import { chooseModel, useEffectiveChoice, type ModelChoice } from './choice'
import { providerLabel } from './format'
import { groupStatus, ModelList } from './ModelList'
import { ModelIdForm } from './ModelIdForm'
import { ModelOptionsForm } from './ModelOptionsForm'
import { closeModelPicker, usePickerUi, type PickerTab } from './pickerState'
import { ProviderTabs } from './ProviderTabs'
import { PullForm } from './PullForm'
import './models.css'

/**
 * The model picker: every configured provider's models in one list, grouped by provider
 * (choosing one switches provider and model together), and a tab per provider with what it
 * takes to set it up (Ollama's address and pulls, OpenAI's key, a compatible server's URL).
 */
export function PickerDialog(): React.JSX.Element {
  const idBase = useId()
  const effective = useEffectiveChoice()
  const requestedTab = usePickerUi((s) => s.tab)
  const sessionOpen = useApp((s) => s.sessionId !== null)
  const providers = useAllModels((s) => s.providers)
  const asking = useAllModels((s) => s.loading)
  const loaded = useAllModels((s) => s.setupKey !== null || s.providers.length > 0)
  const [tab, setTab] = useState<PickerTab>(requestedTab ?? 'all')
  const [filter, setFilter] = useState('')
  const [busy, setBusy] = useState(false)

  // Opening the picker asks every provider again (a server started since, a model pulled outside).
  useEffect(() => {
    void refreshCatalog()
  }, [])

  const choose = async (next: ModelChoice): Promise<void> => {
    if (busy) return
    setBusy(true)
    try {
      await chooseModel(next)
      closeModelPicker()
    } catch {
      // Toasted by invoke; the picker stays open to try another.
    } finally {
      setBusy(false)
    }
  }
  const chooseOn = (group: ProviderGroup) => (model: string) =>
    void choose({ provider: group.provider, model, ...(group.baseUrl ? { baseUrl: group.baseUrl } : {}) })
  const currentFor = (provider: ProviderId): string | null =>
    effective?.provider === provider ? effective.model : null
  const needle = filter.trim().toLowerCase()
  const group = tab === 'all' ? undefined : groupOf(providers, tab)

  return (
    <Dialog
      title="Model"
      onClose={closeModelPicker}
      className="model-picker-dialog"
      testId="model-picker-dialog"
    >
      <ProviderTabs value={tab} onChange={setTab} idBase={idBase} />
      <div
        className="model-picker-panel"
        role="tabpanel"
        id={`${idBase}-panel`}
        aria-labelledby={`${idBase}-tab-${tab}`}
        aria-busy={busy || asking}
        data-testid="model-picker-panel"
      >
        {!loaded && <p className="ui-note">Asking the providers for their models…</p>}
        {tab === 'all' && loaded && (
          <>
            <ModelFilter value={filter} onChange={setFilter} />
            {providers.map((g) => (
              <ProviderGroupSection
                key={g.provider}
                group={g}
                needle={needle}
                current={currentFor(g.provider)}
                onChoose={chooseOn(g)}
                onSetUp={() => setTab(g.provider)}
              />
            ))}
          </>
        )}
        {tab !== 'all' && group && (
          <ProviderSetup group={group} current={currentFor(group.provider)} onChoose={chooseOn(group)} />
        )}
        {/* The window and temperature: of the tab's provider, or on All models of the one in use. */}
        {(tab !== 'all' || effective) && (
          <ModelOptionsForm key={tab} provider={tab === 'all' ? effective!.provider : tab} />
        )}
      </div>
      {sessionOpen && (
        <p className="ui-note" data-testid="model-switch-note">
          A new model applies from this chat’s next turn, and to new chats.
        </p>
      )}
    </Dialog>
  )
}

interface ProviderSetupProps {
  group: ProviderGroup
  current: string | null
  onChoose(model: string): void
}

/** One provider's tab: its server or key, its models, and a model by name. */
function ProviderSetup({ group, current, onChoose }: ProviderSetupProps): React.JSX.Element {
  const { provider } = group
  const { apiKey, canPull, description } = providerDescriptor(provider)
  // A provider that needs a key is a cloud at its own address: the key is its setup, not an address.
  return (
    <>
      {apiKey !== 'required' && <AddressForm key={group.baseUrl} provider={provider} value={group.baseUrl} />}
      {(apiKey === 'required' || (apiKey === 'optional' && group.configured)) && (
        <ApiKeyForm provider={provider} optional={apiKey === 'optional'} keySet={group.keySet} />
      )}
      {group.configured && <ModelList group={group} current={current} onChoose={onChoose} />}
      {canPull && group.reachable && <PullForm baseUrl={group.baseUrl} onUse={onChoose} />}
      {!canPull && group.configured && <ModelIdForm onUse={onChoose} />}
      {description && !group.configured && <p className="ui-note">{description}</p>}
    </>
  )
}

/** The filter over every provider's models. */
function ModelFilter({
  value,
  onChange,
}: {
  value: string
  onChange(value: string): void
}): React.JSX.Element {
  const filterId = useId()
  return (
    <div>
      <label className="ui-label" htmlFor={filterId}>
        Filter models
      </label>
      <input
        id={filterId}
        className="ui-input"
        type="search"
        data-testid="model-filter"
        value={value}
        placeholder="e.g. coder, mini"
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  )
}

interface ProviderGroupProps {
  group: ProviderGroup
  /** The filter, trimmed and lower-cased. */
  needle: string
  current: string | null
  onChoose(model: string): void
  /** Opens the provider's own tab, to set it up. */
  onSetUp(): void
}

/** One provider on All models: its state, its models, or what it still needs. */
function ProviderGroupSection({
  group: g,
  needle,
  current,
  onChoose,
  onSetUp,
}: ProviderGroupProps): React.JSX.Element {
  return (
    <section
      className="model-picker-group"
      data-testid={`model-group-${g.provider}`}
      aria-label={providerLabel(g.provider)}
    >
      <header className="model-picker-group-head">
        <h3>{providerLabel(g.provider)}</h3>
        <span className="model-picker-group-status">{groupStatus(g)}</span>
        {!g.configured && (
          <button type="button" className="ui-button small" onClick={onSetUp}>
            {providerDescriptor(g.provider).apiKey === 'required' ? 'Enter API key' : 'Set up'}
          </button>
        )}
      </header>
      {g.configured && <ModelList group={g} needle={needle} current={current} onChoose={onChoose} />}
    </section>
  )
}
