import type React from 'react'
import { useId } from 'react'
import { ApprovalHeader } from './ApprovalFrame'
import type { ApprovalAnswer, ApprovalCard } from './types'
import { useApprovalKeys } from './useApprovalKeys'
import { useResolveOnce } from './useResolveOnce'

interface SummarisedFileApprovalProps {
  request: ApprovalCard<'file'>
  onResolve(answer: ApprovalAnswer): void
}

/**
 * A file change too large to show in full (src/shared/approval-diff.ts): the first lines of its diff
 * and the truncation line, no before/after text, so no per-hunk choice and no editing. Keys: Y accept, N reject.
 */
export function SummarisedFileApproval({
  request,
  onResolve,
}: SummarisedFileApprovalProps): React.JSX.Element {
  const [resolved, resolve] = useResolveOnce(onResolve)
  const titleId = useId()
  const { path, change, diff } = request.subject
  useApprovalKeys(
    { y: () => resolve({ decision: 'accept' }), n: () => resolve({ decision: 'reject' }) },
    !resolved,
  )
  return (
    <section className="approval-panel" aria-labelledby={titleId} data-testid="approval-panel">
      <ApprovalHeader titleId={titleId} kind="file" badge={change} heading={path} tool={request.tool} />
      <div className="approval-command-body">
        <p data-testid="approval-summarised">
          Too large to show in full — accept or reject the change whole. The start of its diff:
        </p>
        <pre className="approval-summarised-diff">{diff}</pre>
      </div>
      <footer className="approval-actions approval-conflict-actions">
        <button
          type="button"
          className="ui-button primary"
          data-testid="approval-accept"
          disabled={resolved}
          onClick={() => resolve({ decision: 'accept' })}
        >
          Accept (Y)
        </button>
        <button
          type="button"
          className="ui-button"
          data-testid="approval-reject"
          disabled={resolved}
          onClick={() => resolve({ decision: 'reject' })}
        >
          Reject (N)
        </button>
      </footer>
    </section>
  )
}
