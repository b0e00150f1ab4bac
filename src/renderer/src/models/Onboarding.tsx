import type React from 'react'
import { useEffect } from 'react'
import { create } from 'zustand'
import type { ProviderGroup, SetupProblem } from '../../../shared/protocol'
import { providerDescriptor } from '../../../shared/providers'
import { useApp } from '../state/store'
import { AddressForm } from './AddressForm'
import { choiceKey, refreshCatalog, useAllModels } from './allModels'
import { ApiKeyForm } from './ApiKeyForm'
import { chooseModel, useEffectiveChoice, type ModelChoice } from './choice'
import { isPulling, providerLabel, splitBackticks } from './format'
import { startPull, usePullProgress } from './pull'
import { PullProgressBar } from './PullProgressBar'
import './models.css'

/**
 * The models that answered in this app run, by `choiceKey`: an answer is proof the model works,
 * so the card goes away at once (and stays away in the next chat on the same model).
 */
const useAnswered = create<Record<string, true>>(() => ({}))

useApp.subscribe((s, prev) => {
  if (s.view === prev.view || !s.view.provider || !s.view.model) return
  const answered = s.view.steps.some((step) => step.kind === 'model' && step.status === 'ok')
  if (!answered) return
  const provider = s.view.provider as ModelChoice['provider']
  const baseUrl = s.view.baseUrl ?? undefined
  const key = choiceKey({ provider, model: s.view.model, ...(baseUrl ? { baseUrl } : {}) })!
  if (!useAnswered.getState()[key]) useAnswered.setState({ [key]: true })
})

let syncedKey: string | null = null

/** Keeps the catalog's setup check on the model in use: asks again whenever it changes. */
export function useCatalogSync(choice: ModelChoice | null): void {
  const connected = useApp((s) => s.info !== null)
  const key = choiceKey(choice)
  useEffect(() => {
    if (!connected || key === syncedKey) return
    syncedKey = key
    void refreshCatalog(choice)
    // `key` stands for `choice`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [connected, key])
}

/**
 * The setup card: what stands between the user and a working model (the core's check from
 * `models/catalog`), with what fixes it right here — Ollama's address, Retry and a pull, an
 * OpenAI key or a compatible server's URL, or a switch to a model that does answer. It reads the
 * same store as the picker, so it goes as soon as anything fixed the problem.
 */
export function Onboarding(): React.JSX.Element | null {
  const choice = useEffectiveChoice()
  useCatalogSync(choice)
  const key = choiceKey(choice)
  const setup = useAllModels((s) => (s.setupKey === key ? s.setup : null))
  const providers = useAllModels((s) => s.providers)
  const answered = useAnswered((s) => (key ? s[key] === true : false))

  if (!choice || !setup) return null
  if (setup.ready) {
    if (setup.problems.length === 0) return null
    return (
      <p className="onboarding-note" data-testid="onboarding-note" role="note">
        {answered
          ? `${choice.model} is not listed by the server; it answered, so it works.`
          : `${choice.model} is not listed by the server; many servers answer for names they do not list — send a message to try it.`}
      </p>
    )
  }
  if (answered) return null
  return <SetupCard choice={choice} problems={setup.problems} providers={providers} />
}

interface SetupCardProps {
  choice: ModelChoice
  problems: SetupProblem[]
  providers: ProviderGroup[]
}

function SetupCard({ choice, problems, providers }: SetupCardProps): React.JSX.Element {
  // Servers on this machine first, then the cloud: each set up as its descriptor says.
  const local = providers.filter((g) => providerDescriptor(g.provider).localServer)
  const cloud = providers.filter((g) => !providerDescriptor(g.provider).localServer)
  const noneAnswers = providers.length > 0 && providers.every((g) => !g.reachable)
  const others = alternatives(providers, choice)
  return (
    <section className="onboarding" data-testid="onboarding" aria-labelledby="setup-card-title">
      <h2 className="onboarding-title" id="setup-card-title">
        {noneAnswers ? 'No model server is reachable yet' : `Set up a model: ${choice.model} cannot run yet`}
      </h2>
      {problems.map((problem) => (
        <div className="onboarding-text" key={problem.code} data-code={problem.code}>
          <p data-testid="setup-problem">{problem.message}</p>
          <p className="onboarding-fix">
            {splitBackticks(problem.fix).map((part, i) =>
              part.code ? <code key={i}>{part.text}</code> : part.text,
            )}
          </p>
        </div>
      ))}
      {others.length > 0 && (
        <div className="setup-alternatives" data-testid="setup-alternatives">
          <span>Or use a model that answers:</span>
          {others.map((c) => (
            <button
              key={`${c.provider}:${c.model}`}
              type="button"
              className="ui-button small"
              onClick={() => void chooseModel(c).catch(() => undefined)}
            >
              {c.model} <span className="setup-provider">· {providerLabel(c.provider)}</span>
            </button>
          ))}
        </div>
      )}
      <div className="setup-options">
        <div className="setup-option" data-testid="setup-local">
          <h3>Local · {local.map((g) => providerLabel(g.provider)).join(', ')}</h3>
          {providerDescriptor(choice.provider).canPull &&
            problems.some((p) => p.code === 'model-missing') && <PullButton choice={choice} />}
          {local.map((g) => (
            <AddressForm
              key={`${g.provider} ${g.baseUrl}`}
              provider={g.provider}
              value={g.baseUrl}
              onRetry={() => void refreshCatalog()}
            />
          ))}
        </div>
        <div className="setup-option" data-testid="setup-cloud">
          <h3>Cloud</h3>
          {cloud.map((g) =>
            providerDescriptor(g.provider).apiKey === 'required' ? (
              !g.configured && <ApiKeyForm key={g.provider} provider={g.provider} />
            ) : (
              <AddressForm key={`${g.provider} ${g.baseUrl}`} provider={g.provider} value={g.baseUrl} />
            ),
          )}
        </div>
      </div>
    </section>
  )
}

/** Models that answered the last check on other providers (or other names): up to three per provider. */
function alternatives(providers: readonly ProviderGroup[], choice: ModelChoice): ModelChoice[] {
  return providers
    .filter((g) => g.reachable)
    .flatMap((g) =>
      g.models
        .filter((m) => !(g.provider === choice.provider && m.name === choice.model))
        .slice(0, 3)
        .map((m) => ({ provider: g.provider, model: m.name, ...(g.baseUrl ? { baseUrl: g.baseUrl } : {}) })),
    )
    .slice(0, 6)
}

function PullButton({ choice }: { choice: ModelChoice }): React.JSX.Element {
  const pull = usePullProgress(choice.model)
  return (
    <div className="setup-pull">
      <button
        type="button"
        className="ui-button small primary"
        data-testid="onboarding-pull"
        disabled={isPulling(pull)}
        onClick={() => startPull(choice.model, choice.baseUrl).catch(() => undefined)}
      >
        {isPulling(pull) ? 'Pulling…' : `Pull ${choice.model}`}
      </button>
      {pull && <PullProgressBar model={choice.model} />}
    </div>
  )
}
