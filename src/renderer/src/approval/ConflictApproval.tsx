import type React from 'react'
import { useId, useState } from 'react'
import type { ApprovalAnswer, ConflictApprovalRequest } from './types'
import { useApprovalKeys } from './useApprovalKeys'

interface ConflictApprovalProps {
  request: ConflictApprovalRequest
  onResolve(answer: ApprovalAnswer): void
}

/**
 * The file of an approved change was changed on disk while it waited (the user edited it):
 * apply the change anyway, skip it and keep the file as it is, or let the model read the file
 * again and redo its change. Keys: Y apply, N skip, R regenerate.
 */
export function ConflictApproval({ request, onResolve }: ConflictApprovalProps): React.JSX.Element {
  const [resolved, setResolved] = useState(false)
  const titleId = useId()
  const resolve = (answer: ApprovalAnswer): void => {
    if (resolved) return
    setResolved(true)
    onResolve(answer)
  }
  useApprovalKeys(
    {
      y: () => resolve({ decision: 'accept' }),
      n: () => resolve({ decision: 'reject' }),
      r: () => resolve({ decision: 'regenerate' }),
    },
    !resolved,
  )
  return (
    <section className="approval-panel" aria-labelledby={titleId} data-testid="approval-panel">
      <header className="approval-header">
        <div className="approval-title">
          <span className="approval-badge approval-badge--conflict">changed on disk</span>
          <h2 id={titleId} className="approval-heading">
            {request.conflictPath} changed while the change waited
          </h2>
        </div>
        <div className="approval-meta">
          <span>
            via <code>{request.tool}</code>
          </span>
        </div>
      </header>
      <div className="approval-command-body">
        <p>
          The file is no longer what the model read. Apply its change over the file as it is now, keep your
          version and skip the change, or have the model read the file again and redo it.
        </p>
      </div>
      <footer className="approval-actions approval-conflict-actions">
        <button
          type="button"
          className="ui-button primary"
          data-testid="conflict-apply"
          disabled={resolved}
          onClick={() => resolve({ decision: 'accept' })}
        >
          Apply anyway (Y)
        </button>
        <button
          type="button"
          className="ui-button"
          data-testid="conflict-skip"
          disabled={resolved}
          onClick={() => resolve({ decision: 'reject' })}
        >
          Skip (N)
        </button>
        <button
          type="button"
          className="ui-button"
          data-testid="conflict-regenerate"
          disabled={resolved}
          onClick={() => resolve({ decision: 'regenerate' })}
        >
          Regenerate (R)
        </button>
      </footer>
    </section>
  )
}
