import type { ActionPlan, FileChange } from '../tools/types'

/** What a user (or a host on their behalf) answers to a proposed change. */
export type ApprovalAnswer =
  | { decision: 'accept' }
  | { decision: 'reject'; reason?: string }
  /** Accept, but write `content` instead of the proposal. */
  | { decision: 'edited'; content: string }
  /** Accept some hunks of the proposal and reject the rest: `content` is the file with the accepted ones. */
  | { decision: 'partial'; content: string; reason?: string }
  /** Accept this change and every further file change in this session without asking. */
  | { decision: 'always' }
  /** For an edit conflict: let the model read the file again and redo its change. */
  | { decision: 'regenerate' }

export type ApprovalRequest =
  | { kind: 'file'; sessionId: string; callId: string; tool: string; change: FileChange; diff: string }
  /** A command or another action with effects beyond one file (`edited` is not offered). */
  | { kind: 'action'; sessionId: string; callId: string; tool: string; plan: ActionPlan }
  /** An approved change whose file changed on disk meanwhile (accept: apply anyway, reject: skip). */
  | { kind: 'conflict'; sessionId: string; callId: string; tool: string; path: string; message: string }

export interface Approver {
  requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>
}

/** An approver for hosts that cannot ask (no TTY): every change is refused with a way out. */
export const refusingApprover: Approver = {
  async requestApproval() {
    return {
      decision: 'reject',
      reason:
        'Approval policy is "ask" but there is no terminal to ask in. Re-run with --approve auto-edit (or full-auto) to let changes apply.',
    }
  },
}
