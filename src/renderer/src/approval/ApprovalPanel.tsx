import type React from 'react'
import './approval.css'
import { CommandApproval } from './CommandApproval'
import { ConflictApproval } from './ConflictApproval'
import { FileApproval } from './FileApproval'
import { McpApproval } from './McpApproval'
import { isConflictRequest, isFileRequest, isMcpRequest, type ApprovalPanelProps } from './types'

export type {
  ApprovalAnswer,
  ApprovalPanelProps,
  CommandApprovalRequest,
  ConflictApprovalRequest,
  FileApprovalRequest,
  McpApprovalRequest,
} from './types'

/**
 * Asks the user about one pending approval: a file change (Monaco diff, per-hunk choices, editing) or a
 * command, or an MCP tool call. Fills its parent (give it a definite height); a new `callId` starts afresh.
 * Keys, when focus is not in a text field or editor: Y accept, N reject, E edit.
 */
export function ApprovalPanel({ request, queued, onResolve }: ApprovalPanelProps): React.JSX.Element {
  if (isConflictRequest(request))
    return <ConflictApproval key={request.callId} request={request} onResolve={onResolve} />
  if (isMcpRequest(request))
    return <McpApproval key={request.callId} request={request} queued={queued} onResolve={onResolve} />
  return isFileRequest(request) ? (
    <FileApproval key={request.callId} request={request} queued={queued} onResolve={onResolve} />
  ) : (
    <CommandApproval key={request.callId} request={request} queued={queued} onResolve={onResolve} />
  )
}
