import type React from 'react'
import { invoke, send, useApp } from '../state/store'

export const SKIP_MESSAGE =
  'Skip the step that failed and carry on with the rest of the task. Say what you skipped.'

/**
 * When a turn ended on an error (a model timeout, a server that went away), the
 * user decides: ask the model again from where it stopped, skip that step, or
 * leave it. Nothing is lost either way: every step before the error is stored.
 */
export function ErrorActions(): React.JSX.Element | null {
  const sessionId = useApp((s) => s.sessionId)
  const failed = useApp((s) => s.view.status === 'finished' && s.view.finishReason === 'error')
  const message = useApp((s) => s.view.finishMessage)
  const dismissedAt = useApp((s) => s.dismissedErrorSeq)
  const lastSeq = useApp((s) => s.view.lastSeq)
  if (!sessionId || !failed || dismissedAt === lastSeq) return null
  return (
    <div className="error-actions" role="alert" data-testid="error-actions">
      <p>
        <strong>The turn stopped on an error.</strong> {message}
      </p>
      <div className="buttons">
        <button
          type="button"
          className="ui-button small primary"
          data-testid="error-retry"
          onClick={() => void invoke('turn/retry', { sessionId }).catch(() => undefined)}
        >
          Retry
        </button>
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
          Abort
        </button>
      </div>
    </div>
  )
}
