import type { ApprovalPolicy } from '../../shared/protocol'
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

/**
 * An approver for hosts that cannot ask (no terminal): every request is refused, with advice
 * that fits the policy in force — under `auto-edit` file changes already apply, so what was
 * asked is a command (or a file that always asks), and "use auto-edit" would not help.
 */
export function refusingApprover(policy: ApprovalPolicy): Approver {
  return {
    async requestApproval(request) {
      return { decision: 'reject', reason: refusalAdvice(policy, request) }
    },
  }
}

export function refusalAdvice(policy: ApprovalPolicy, request: Pick<ApprovalRequest, 'kind'>): string {
  const noTerminal = `Approval policy is "${policy}" and there is no terminal to ask in`
  if (request.kind === 'conflict')
    return `${noTerminal}: the file changed on disk after its change was proposed, so it was not written. Run in a terminal to decide, or re-run the task.`
  if (policy === 'ask')
    return request.kind === 'file'
      ? `${noTerminal}. Re-run with --approve auto-edit (or full-auto) to let file changes apply.`
      : `${noTerminal}. Re-run with --approve full-auto to run commands off the allowlist in the sandbox, or add this one to the "allow" list of the commands setting (docs/commands.md).`
  if (request.kind === 'action')
    return policy === 'auto-edit'
      ? `${noTerminal}: under auto-edit, commands off the allowlist still ask. Re-run with --approve full-auto to run them in the sandbox, or add this one to the "allow" list of the commands setting (docs/commands.md).`
      : `${noTerminal}: this command asks even under ${policy}. Run in a terminal to answer it.`
  return `${noTerminal}: this file asks even under ${policy}. Run in a terminal to answer it, or leave the file alone.`
}
