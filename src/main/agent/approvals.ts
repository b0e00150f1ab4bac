import type { ApprovalPolicy } from '../../shared/protocol'
import type { FileChange } from '../tools/types'

/** What a user (or a host on their behalf) answers to a proposed change. */
export type ApprovalAnswer =
  | { decision: 'accept' }
  | { decision: 'reject'; reason?: string }
  /** Accept, but write `content` instead of the proposal. */
  | { decision: 'edited'; content: string }
  /** Accept this change and every further file change in this session without asking. */
  | { decision: 'always' }

export interface ApprovalRequest {
  sessionId: string
  callId: string
  tool: string
  change: FileChange
  diff: string
}

export interface Approver {
  requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>
}

/**
 * What the policy says about a tool before anyone is asked (DESIGN §2).
 * `read-only` never offers mutating tools, so a mutating call there came from a
 * model that ignored the tool list and is refused.
 */
export function policyDecision(policy: ApprovalPolicy, mutating: boolean): 'run' | 'ask' | 'refuse' {
  if (!mutating) return 'run'
  switch (policy) {
    case 'ask':
      return 'ask'
    case 'auto-edit':
    case 'full-auto':
      return 'run'
    case 'read-only':
      return 'refuse'
    default: {
      const unreachable: never = policy
      return unreachable
    }
  }
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
