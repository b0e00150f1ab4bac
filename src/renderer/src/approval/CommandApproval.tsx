import type React from 'react'
import { AcceptRejectApproval } from './ApprovalFrame'
import { BacktickText } from './BacktickText'
import type { ApprovalAnswer, ApprovalCard } from './types'

interface CommandApprovalProps {
  request: ApprovalCard<'command'>
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

/** A command the agent wants to run: the exact command line and folder, Approve or Reject. */
export function CommandApproval({ request, queued, onResolve }: CommandApprovalProps): React.JSX.Element {
  return (
    <AcceptRejectApproval
      kind="command"
      badge="command"
      heading="Run this command?"
      tool={request.tool}
      queued={queued}
      rule={request.rule}
      onResolve={onResolve}
    >
      <div className="approval-command-body">
        <pre className="approval-command" data-testid="approval-command" aria-label="Command line">
          <code>{request.subject.command}</code>
        </pre>
        <p className="approval-cwd">
          in <code data-testid="approval-cwd">{request.subject.cwd}</code>
        </p>
        {request.subject.reason && (
          <p className="approval-cwd" data-testid="approval-reason">
            <BacktickText text={request.subject.reason} />
          </p>
        )}
      </div>
    </AcceptRejectApproval>
  )
}
