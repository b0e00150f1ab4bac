import type React from 'react'
import './approval.css'
import { CommandApproval } from './CommandApproval'
import { ConflictApproval } from './ConflictApproval'
import { FileApproval } from './FileApproval'
import { SummarisedFileApproval } from './SummarisedFileApproval'
import { McpApproval } from './McpApproval'
import { isCard, type ApprovalPanelProps } from './types'

export type { ApprovalAnswer, ApprovalCard, ApprovalPanelProps } from './types'

/**
 * Asks the user about one pending approval: a file change (Monaco diff, per-hunk choices, editing), a
 * command, an MCP tool call, or an edit conflict. Fills its parent (give it a definite height); a new
 * `callId` starts afresh. Keys, when focus is not in a text field or editor: Y accept, N reject, E edit.
 */
export function ApprovalPanel({ request, queued, onResolve }: ApprovalPanelProps): React.JSX.Element {
  if (isCard(request, 'conflict'))
    return <ConflictApproval key={request.callId} request={request} onResolve={onResolve} />
  if (isCard(request, 'mcp'))
    return <McpApproval key={request.callId} request={request} queued={queued} onResolve={onResolve} />
  if (isCard(request, 'file') && request.subject.summarised)
    return (
      <SummarisedFileApproval key={request.callId} request={request} queued={queued} onResolve={onResolve} />
    )
  if (isCard(request, 'file'))
    return <FileApproval key={request.callId} request={request} queued={queued} onResolve={onResolve} />
  if (isCard(request, 'command'))
    return <CommandApproval key={request.callId} request={request} queued={queued} onResolve={onResolve} />
  // Every kind of subject has its card above; a new kind must get one.
  throw new Error(`No approval card for a "${request.subject.kind}" request.`)
}
