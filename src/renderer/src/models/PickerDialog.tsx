import type React from 'react'
import { useId, useState } from 'react'
import type { ProviderId } from '../../../shared/protocol'
import { Dialog } from '../palette/Dialog'
import { useApp } from '../state/store'
import { ApiKeyForm } from './ApiKeyForm'
import { chooseModel, useEffectiveChoice, type ModelChoice } from './choice'
import { CompatibleServer } from './CompatibleServer'
import { ModelIdForm } from './ModelIdForm'
import { ModelList } from './ModelList'
import { ModelOptionsForm } from './ModelOptionsForm'
import { closeModelPicker, usePickerUi } from './pickerState'
import { ProviderTabs } from './ProviderTabs'
import { PullForm } from './PullForm'
import './models.css'

/** The model picker's dialog: a tab per provider, its models, and what it takes to add one. */
export function PickerDialog(): React.JSX.Element {
  const idBase = useId()
  const effective = useEffectiveChoice()
  const requestedTab = usePickerUi((s) => s.tab)
  const sessionOpen = useApp((s) => s.sessionId !== null)
  const [tab, setTab] = useState<ProviderId>(requestedTab ?? effective?.provider ?? 'ollama')
  const [busy, setBusy] = useState(false)

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
  const currentFor = (provider: ProviderId): string | null =>
    effective?.provider === provider ? effective.model : null
  // The server a provider's models come from: the one in use, else the host's default for it.
  const defaults = useApp((s) => s.info?.defaults)
  const baseUrlFor = (provider: ProviderId): string | undefined =>
    effective?.provider === provider
      ? effective.baseUrl
      : defaults?.provider === provider
        ? defaults.baseUrl
        : undefined
  const ollamaUrl = baseUrlFor('ollama')
  const openaiUrl = baseUrlFor('openai')

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
        aria-busy={busy}
      >
        {tab === 'ollama' && (
          <>
            <ModelList
              provider="ollama"
              baseUrl={ollamaUrl}
              current={currentFor('ollama')}
              onChoose={(model) => void choose({ provider: 'ollama', model, baseUrl: ollamaUrl })}
            />
            <PullForm
              baseUrl={ollamaUrl}
              onUse={(model) => void choose({ provider: 'ollama', model, baseUrl: ollamaUrl })}
            />
          </>
        )}
        {tab === 'openai' && (
          <>
            <ApiKeyForm provider="openai" baseUrl={openaiUrl} />
            <ModelList
              provider="openai"
              baseUrl={openaiUrl}
              current={currentFor('openai')}
              onChoose={(model) => void choose({ provider: 'openai', model, baseUrl: openaiUrl })}
            />
            <ModelIdForm onUse={(model) => void choose({ provider: 'openai', model, baseUrl: openaiUrl })} />
          </>
        )}
        {tab === 'openai-chat' && (
          <CompatibleServer
            initialBaseUrl={effective?.provider === 'openai-chat' ? (effective.baseUrl ?? '') : ''}
            current={currentFor('openai-chat')}
            onChoose={(model, baseUrl) => void choose({ provider: 'openai-chat', model, baseUrl })}
          />
        )}
        <ModelOptionsForm key={tab} provider={tab} />
      </div>
      {sessionOpen && (
        <p className="ui-note" data-testid="model-switch-note">
          A new model applies from this chat’s next turn, and to new chats.
        </p>
      )}
    </Dialog>
  )
}
