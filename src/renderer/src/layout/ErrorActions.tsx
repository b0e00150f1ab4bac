import { useState } from 'react'
import type React from 'react'
import type { ProviderId } from '../../../shared/protocol'
import { openModelPicker } from '../models/pickerState'
import { getApi, send, useApp } from '../state/store'
import { errorActionsFor, lastTurnError } from './errorCard'
import { errorMessage } from '../../../shared/errors'

export const SKIP_MESSAGE =
  'Skip the step that failed and carry on with the rest of the task. Say what you skipped.'

/**
 * When a turn ended on an error (a model timeout, a server that went away), the user
 * decides: ask the model again from where it stopped, fix the model setup, skip that step,
 * or leave it. The error's words are in the timeline row just above (one card per error:
 * this bar does not repeat them); a Retry that cannot start says why here.
 * Nothing is lost either way: every step before the error is stored.
 */
export function ErrorActions(): React.JSX.Element | null {
  const sessionId = useApp((s) => s.sessionId)
  const failed = useApp((s) => s.view.status === 'finished' && s.view.finishReason === 'error')
  const lastError = useApp((s) => lastTurnError(s.view.steps))
  const finishMessage = useApp((s) => s.view.finishMessage)
  const provider = useApp((s) => s.view.provider)
  const dismissedAt = useApp((s) => s.dismissedErrorSeq)
  const lastSeq = useApp((s) => s.view.lastSeq)
  const [retryFailed, setRetryFailed] = useState<{ seq: number; why: string } | null>(null)
  if (!sessionId || !failed || dismissedAt === lastSeq) return null
  const actions = errorActionsFor(lastError?.code)
  const retry = async (): Promise<void> => {
    setRetryFailed(null)
    try {
      await getApi().invoke('turn/retry', { sessionId })
    } catch (err) {
      setRetryFailed({ seq: lastSeq, why: errorMessage(err) })
    }
  }
  const why = retryFailed?.seq === lastSeq ? retryFailed.why : null
  return (
    <div className="error-actions" role="alert" data-testid="error-actions">
      <p>
        {lastError ? (
          <strong>The turn stopped on the error above.</strong>
        ) : (
          <strong>The turn stopped on an error: {finishMessage}</strong>
        )}{' '}
        {why ? (
          <span data-testid="retry-failed">Retry could not start: {why}</span>
        ) : (
          'Everything before it is kept.'
        )}
      </p>
      <div className="buttons">
        <button
          type="button"
          className="ui-button small primary"
          data-testid="error-retry"
          onClick={() => void retry()}
        >
          Retry
        </button>
        <ModelButtons actions={actions} provider={provider} />
        <button
          type="button"
          className="ui-button small"
          data-testid="error-skip"
          onClick={() => void send(SKIP_MESSAGE).catch(() => undefined)}
        >
          Skip
        </button>
        <button
          type="button"
          className="ui-button small"
          data-testid="error-abort"
          onClick={() => useApp.setState({ dismissedErrorSeq: lastSeq })}
        >
          Dismiss
        </button>
      </div>
    </div>
  )
}

/** The ways out that go through the model picker: fix this model's setup, or pick another one. */
function ModelButtons({
  actions,
  provider,
}: {
  actions: ReturnType<typeof errorActionsFor>
  provider: string | null
}): React.JSX.Element {
  return (
    <>
      {actions.openModels && (
        <button
          type="button"
          className="ui-button small"
          data-testid="error-open-models"
          onClick={() => openModelPicker((provider as ProviderId | null) ?? undefined)}
        >
          Open models
        </button>
      )}
      {actions.switchModel && (
        <button
          type="button"
          className="ui-button small"
          data-testid="error-switch-model"
          onClick={() => openModelPicker()}
        >
          Switch model
        </button>
      )}
    </>
  )
}
