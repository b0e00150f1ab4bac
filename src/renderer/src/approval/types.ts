/** What the user answered; the host turns it into an `approval/resolve` command. */
export type ApprovalAnswer =
  | { decision: 'accept' }
  | { decision: 'reject'; reason?: string }
  | { decision: 'edited'; editedContent: string }
  | { decision: 'partial'; editedContent: string; reason?: string }
  /** For an edit conflict: the model reads the file again and redoes its change. */
  | { decision: 'regenerate' }

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

/** An approved change whose file changed on disk while it waited. */
export interface ConflictApprovalRequest {
  callId: string
  tool: string
  conflictPath: string
  message: string
}

/** A call to a tool of an MCP server (`approval.requested.mcp`). */
export interface McpApprovalRequest {
  callId: string
  /** The name the model used: `mcp__SERVER__TOOL`. */
  tool: string
  mcp: {
    server: string
    /** The server's own name for the tool. */
    tool: string
    args: unknown
    /** The server's description: untrusted text. */
    description?: string
  }
}

export interface ApprovalPanelProps {
  request: FileApprovalRequest | CommandApprovalRequest | ConflictApprovalRequest | McpApprovalRequest
  /** How many more approvals wait after this one (shown as "1 of N"). */
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

export function isFileRequest(r: ApprovalPanelProps['request']): r is FileApprovalRequest {
  return 'path' in r
}

export function isConflictRequest(r: ApprovalPanelProps['request']): r is ConflictApprovalRequest {
  return 'conflictPath' in r
}

export function isMcpRequest(r: ApprovalPanelProps['request']): r is McpApprovalRequest {
  return 'mcp' in r
}
