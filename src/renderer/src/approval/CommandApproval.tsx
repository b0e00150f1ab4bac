import type React from 'react'
import { useId, useState } from 'react'
import { ApprovalActions } from './ApprovalActions'
import type { ApprovalAnswer, CommandApprovalRequest } from './types'
import { useApprovalKeys } from './useApprovalKeys'
import { useResolveOnce } from './useResolveOnce'

interface CommandApprovalProps {
  request: CommandApprovalRequest
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

/** A command the agent wants to run: the exact command line and folder, Approve or Reject. */
export function CommandApproval({ request, queued, onResolve }: CommandApprovalProps): React.JSX.Element {
  const [rejecting, setRejecting] = useState(false)
  const [resolved, resolve] = useResolveOnce(onResolve)
  const titleId = useId()

  useApprovalKeys(
    { y: () => resolve({ decision: 'accept' }), n: () => setRejecting(true) },
    !resolved && !rejecting,
  )

  return (
    <section className="approval-panel" aria-labelledby={titleId} data-testid="approval-panel">
      <header className="approval-header">
        <div className="approval-title">
          <span className="approval-badge approval-badge--command">command</span>
          <h2 id={titleId} className="approval-heading">
            Run this command?
          </h2>
        </div>
        <div className="approval-meta">
          <span>
            via <code>{request.tool}</code>
          </span>
          {queued > 0 && <span data-testid="approval-queue">1 of {queued + 1}</span>}
        </div>
      </header>
      <div className="approval-command-body">
        <pre className="approval-command" data-testid="approval-command" aria-label="Command line">
          <code>{request.command}</code>
        </pre>
        <p className="approval-cwd">
          in <code data-testid="approval-cwd">{request.cwd}</code>
        </p>
      </div>
      <ApprovalActions
        acceptLabel="Approve (Y)"
        resolved={resolved}
        rejecting={rejecting}
        onRejectingChange={setRejecting}
        onAccept={() => resolve({ decision: 'accept' })}
        onReject={(reason) => resolve(reason ? { decision: 'reject', reason } : { decision: 'reject' })}
      />
    </section>
  )
}
