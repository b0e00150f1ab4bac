import type React from 'react'
import { AcceptRejectApproval } from './ApprovalFrame'
import type { ApprovalAnswer, ApprovalCard } from './types'

interface SummarisedFileApprovalProps {
  request: ApprovalCard<'file'>
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

/**
 * A file change too large to show in full (src/shared/approval-diff.ts): the first lines of its diff
 * and the truncation line, no before/after text, so no per-hunk choice and no editing. The frame
 * (ApprovalFrame.tsx) owns the buttons and keys: Y accept, N reject with an optional reason.
 */
export function SummarisedFileApproval({
  request,
  queued,
  onResolve,
}: SummarisedFileApprovalProps): React.JSX.Element {
  const { path, change, diff } = request.subject
  return (
    <AcceptRejectApproval
      kind="file"
      badge={change}
      heading={path}
      tool={request.tool}
      queued={queued}
      dataKind="file-summarised"
      acceptLabel="Accept (Y)"
      onResolve={onResolve}
    >
      <div className="approval-command-body">
        <p data-testid="approval-summarised">
          Too large to show in full — accept or reject the change whole. The start of its diff:
        </p>
        <pre className="approval-summarised-diff">{diff}</pre>
      </div>
    </AcceptRejectApproval>
  )
}
