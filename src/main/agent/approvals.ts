import type { ApprovalAnswer, ApprovalPolicy, ApprovalSubject, RulePattern } from '../../shared/protocol'

export type { ApprovalAnswer } from '../../shared/protocol'

/**
 * What a host is asked (the same subject the `approval.requested` event records): the subject, the
 * rule "always allow" would save when one is offered, and the policy in force, so a host that
 * cannot ask can say what would help.
 */
export interface ApprovalRequest {
  sessionId: string
  callId: string
  tool: string
  subject: ApprovalSubject
  rule?: RulePattern
  policy: ApprovalPolicy
  /** Why the decision asks (decide.ts), for a host that shows or refuses it. */
  why: string
}

export interface Approver {
  requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>
}

/**
 * What would let a call run that asks where no one can answer: named for the policy in force, so
 * `auto-edit` does not advise `--approve auto-edit`.
 */
export function adviceFor(request: Pick<ApprovalRequest, 'subject' | 'policy' | 'rule'>): string {
  const { subject, policy, rule } = request
  const terminal = 'run it in a terminal to be asked'
  if (subject.kind === 'file') {
    if (subject.agentFile)
      return `${subject.path} instructs agents or other tools, so it asks under every policy but full-auto: ${terminal}, use the app, or re-run with --approve full-auto if you trust the task.`
    return `Re-run with --approve auto-edit (or full-auto) to let file changes apply, or ${terminal}.`
  }
  if (subject.kind === 'conflict') return `Re-run the task, or ${terminal}.`
  const saveRule = rule
    ? ` or allow it for this project once (\`stepwise rules add ${rule.kind === 'mcp' ? `--mcp ${rule.server}/${rule.tool}` : `${rule.words.some((w) => w.startsWith('-')) ? '-- ' : ''}${rule.words.join(' ')}`}\`)`
    : ''
  if (subject.kind === 'command' && subject.unconfined)
    return `It would run without the OS sandbox: fix the sandbox, set "allowUnsandboxed": true in the command settings, or ${terminal}.`
  if (policy === 'ask')
    return `Re-run with --approve full-auto (commands and tools run inside the sandbox)${saveRule}, or ${terminal}.`
  return `Under "${policy}" commands and tools still ask: ${terminal}${saveRule}, or re-run with --approve full-auto.`
}

/** An approver for hosts that cannot ask (no TTY): every call that asks is refused with a way out. */
export const refusingApprover: Approver = {
  async requestApproval(request) {
    return {
      decision: 'reject',
      reason: `Approval policy is "${request.policy}" and this ${describeSubject(request.subject)} needs approval, but there is no terminal to ask in. ${adviceFor(request)}`,
    }
  },
}

function describeSubject(subject: ApprovalSubject): string {
  switch (subject.kind) {
    case 'file':
      return `change to ${subject.path}`
    case 'conflict':
      return `change to ${subject.path}`
    case 'command':
      return 'command'
    case 'mcp':
      return `call of the MCP tool ${subject.server}/${subject.tool}`
  }
}
