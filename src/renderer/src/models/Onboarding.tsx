import type React from 'react'
import { useEffect, useState } from 'react'
import { create } from 'zustand'
import type { SetupProblem } from '../../../shared/protocol'
import { invoke, useApp } from '../state/store'
import { useCatalog } from './catalog'
import { sessionBaseUrl, useEffectiveChoice, type ModelChoice } from './choice'
import { isPulling, splitBackticks } from './format'
import { openModelPicker } from './pickerState'
import { startPull, usePullProgress } from './pull'
import { PullProgressBar } from './PullProgressBar'
import './models.css'

interface CheckResult {
  choiceKey: string
  problems: SetupProblem[]
}

function keyOf(choice: ModelChoice): string {
  return `${choice.provider}\n${choice.model}\n${choice.baseUrl ?? ''}`
}

/**
 * The models that answered in this app run, by `keyOf`: an answer is proof the model works, so
 * the banner goes away at once (and stays away in the next chat on the same model).
 */
const useAnswered = create<Record<string, true>>(() => ({}))

useApp.subscribe((s, prev) => {
  if (s.view === prev.view || !s.view.provider || !s.view.model) return
  const answered = s.view.steps.some((step) => step.kind === 'model' && step.status === 'ok')
  if (!answered) return
  const provider = s.view.provider as ModelChoice['provider']
  const baseUrl = sessionBaseUrl(s.events)
  const key = keyOf({ provider, model: s.view.model, ...(baseUrl ? { baseUrl } : {}) })
  if (!useAnswered.getState()[key]) useAnswered.setState({ [key]: true })
})

/**
 * An OpenAI-compatible server that does not list the model is no error: many serve names they do
 * not list (aliases, a single loaded model). Only a failed request proves it wrong.
 */
function isSoft(choice: ModelChoice, problems: readonly SetupProblem[]): boolean {
  return choice.provider !== 'ollama' && problems.every((p) => p.code === 'model-missing')
}

/**
 * What stands between the user and a working model (`models/check` for the current choice),
 * each problem with its fix and an action: pull the model, enter a key, or retry. Nothing when
 * all is well. Checks again when the choice changes, a key is saved or a pull finishes.
 */
export function Onboarding(): React.JSX.Element | null {
  const choice = useEffectiveChoice()
  const connected = useApp((s) => s.info !== null)
  const nonce = useCatalog((s) => s.checkNonce)
  const [retries, setRetries] = useState(0)
  const [result, setResult] = useState<CheckResult | null>(null)
  const choiceKey = choice ? keyOf(choice) : null
  const attempt = nonce + retries
  const answered = useAnswered((s) => (choiceKey ? s[choiceKey] === true : false))

  useEffect(() => {
    if (!choice || !connected || !choiceKey) return
    let live = true
    invoke('models/check', {
      provider: choice.provider,
      model: choice.model,
      ...(choice.baseUrl ? { baseUrl: choice.baseUrl } : {}),
    })
      .then((reply) => live && setResult({ choiceKey, problems: reply.problems }))
      .catch(() => undefined) // toasted by invoke
    return () => {
      live = false
    }
    // `attempt` re-runs the check (Retry, a key saved, a model pulled).
  }, [choice, connected, choiceKey, attempt])

  // Only an answer for the current choice counts; a re-check keeps the last one up until it answers.
  if (!choice || !result || result.choiceKey !== choiceKey || result.problems.length === 0) return null
  if (isSoft(choice, result.problems)) {
    return (
      <p className="onboarding-note" data-testid="onboarding-note" role="note">
        {answered
          ? `${choice.model} is not listed by the server; it answered, so it works.`
          : `${choice.model} is not listed by the server; many servers answer for names they do not list — send a message to try it.`}
      </p>
    )
  }
  if (answered) return null
  return (
    <section className="onboarding" data-testid="onboarding" aria-label="Model setup">
      <h2 className="onboarding-title">The model is not ready</h2>
      {result.problems.map((problem) => (
        <ProblemRow
          key={problem.code + problem.message}
          problem={problem}
          choice={choice}
          onRetry={() => setRetries((n) => n + 1)}
        />
      ))}
    </section>
  )
}

interface ProblemRowProps {
  problem: SetupProblem
  choice: ModelChoice
  onRetry(): void
}

function ProblemRow({ problem, choice, onRetry }: ProblemRowProps): React.JSX.Element {
  const pull = usePullProgress(choice.model)
  const canPull = problem.code === 'model-missing' && choice.provider === 'ollama'
  return (
    <div className="onboarding-problem" data-code={problem.code}>
      <div className="onboarding-text">
        <p>{problem.message}</p>
        <p className="onboarding-fix">
          {splitBackticks(problem.fix).map((part, i) =>
            part.code ? <code key={i}>{part.text}</code> : part.text,
          )}
        </p>
      </div>
      {canPull ? (
        <button
          type="button"
          className="ui-button small primary"
          data-testid="onboarding-pull"
          disabled={isPulling(pull)}
          onClick={() => startPull(choice.model, choice.baseUrl).catch(() => undefined)}
        >
          {isPulling(pull) ? 'Pulling…' : `Pull ${choice.model}`}
        </button>
      ) : problem.code === 'key-missing' ? (
        <button
          type="button"
          className="ui-button small primary"
          onClick={() => openModelPicker(choice.provider)}
        >
          Enter API key
        </button>
      ) : problem.code === 'model-missing' ? (
        <button type="button" className="ui-button small" onClick={() => openModelPicker(choice.provider)}>
          Choose a model
        </button>
      ) : (
        <button type="button" className="ui-button small" onClick={onRetry}>
          Retry
        </button>
      )}
      {canPull && pull && (
        <div className="onboarding-progress">
          <PullProgressBar model={choice.model} />
        </div>
      )}
    </div>
  )
}
