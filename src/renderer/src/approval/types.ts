/** What the user answered; the host turns it into an `approval/resolve` command. */
export type ApprovalAnswer =
  | { decision: 'accept' }
  | { decision: 'reject'; reason?: string }
  | { decision: 'edited'; editedContent: string }
  | { decision: 'partial'; editedContent: string; reason?: string }

export interface FileApprovalRequest {
  callId: string
  tool: string
  path: string
  kind: 'create' | 'modify' | 'delete'
  before: string | null
  after: string | null
  diff: string
}

export interface CommandApprovalRequest {
  callId: string
  tool: string
  command: string
  cwd: string
}

export interface ApprovalPanelProps {
  request: FileApprovalRequest | CommandApprovalRequest
  /** How many more approvals wait after this one (shown as "1 of N"). */
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

export function isFileRequest(r: FileApprovalRequest | CommandApprovalRequest): r is FileApprovalRequest {
  return 'path' in r
}
