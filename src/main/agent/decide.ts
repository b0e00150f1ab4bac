import { rulesCover } from '../../shared/approval-rules'
import type { ApprovalPolicy, ApprovalRule, ApprovalSubject } from '../../shared/protocol'

/**
 * What the user has granted beyond the policy: "always" for file changes in this session, the
 * "always allow" rules of the session and the project, and the MCP tools the settings let
 * `auto-edit` run (docs/mcp.md#approvals).
 */
export interface Grants {
  fileChanges: boolean
  rules: readonly ApprovalRule[]
  mcpAutoEdit: (server: string, tool: string) => boolean
}

export const NO_GRANTS: Grants = { fileChanges: false, rules: [], mcpAutoEdit: () => false }

export type Decision =
  | {
      action: 'run'
      /** The rule that let it run unasked. */
      rule?: ApprovalRule
      /** It runs unasked although it changes a file that instructs agents (full-auto): mark it. */
      agentFile?: boolean
    }
  | { action: 'ask'; why: string }
  | { action: 'refuse'; why: string }

const run: Decision = { action: 'run' }

/**
 * The one approval decision (docs/architecture.md#approvals): every tool path — file tools, commands,
 * MCP tools, edit conflicts — calls it with the session's policy, what the call would do, and what
 * the user has granted. Pure: the table test in decide.test.ts is the specification.
 *
 * - A denied command is refused under every policy, whatever is granted.
 * - `read-only` refuses every change (MCP tools the server marks read-only follow `auto-edit`).
 * - A file that instructs agents asks under `ask` and `auto-edit`, granted or not; `full-auto` runs
 *   it and marks it.
 */
export function decide(policy: ApprovalPolicy, subject: ApprovalSubject, grants: Grants): Decision {
  switch (subject.kind) {
    case 'file':
      return decideFile(policy, subject.agentFile === true, grants)
    case 'conflict':
      // Only a user who was asked about the change can settle a conflict; unasked, the model is told.
      return policy === 'ask'
        ? { action: 'ask', why: 'the file changed on disk while the change waited' }
        : { action: 'refuse', why: 'the file changed on disk since the model read it' }
    case 'command':
      return decideCommand(policy, subject, grants)
    case 'mcp':
      return decideMcp(policy, subject, grants)
  }
}

function decideFile(policy: ApprovalPolicy, agentFile: boolean, grants: Grants): Decision {
  if (policy === 'read-only') return { action: 'refuse', why: 'the session is read-only' }
  if (policy === 'full-auto') return agentFile ? { action: 'run', agentFile: true } : run
  if (agentFile) return { action: 'ask', why: 'the file instructs agents or other tools' }
  if (policy === 'auto-edit' || grants.fileChanges) return run
  return { action: 'ask', why: 'file changes ask under the "ask" policy' }
}

function decideCommand(
  policy: ApprovalPolicy,
  subject: Extract<ApprovalSubject, { kind: 'command' }>,
  grants: Grants,
): Decision {
  if (subject.verdict === 'deny')
    return { action: 'refuse', why: subject.reason ?? `${subject.command} is on the deny list` }
  if (policy === 'read-only') return { action: 'refuse', why: 'the session is read-only' }
  // Without the OS sandbox (and not allowed in the settings), only a user who sees each command may run it.
  if (subject.unconfined) {
    if (policy !== 'ask') return { action: 'refuse', why: subject.unconfined }
    const rule = rulesCover(grants.rules, subject)
    return rule ? { action: 'run', rule } : { action: 'ask', why: subject.unconfined }
  }
  if (subject.verdict === 'allow' || policy === 'full-auto') return run
  const rule = rulesCover(grants.rules, subject)
  if (rule) return { action: 'run', rule }
  return { action: 'ask', why: subject.reason ?? 'the command is not on the allowlist' }
}

function decideMcp(
  policy: ApprovalPolicy,
  subject: Extract<ApprovalSubject, { kind: 'mcp' }>,
  grants: Grants,
): Decision {
  if (policy === 'read-only' && !subject.readOnly)
    return {
      action: 'refuse',
      why: 'the session is read-only and the server does not mark this tool read-only',
    }
  if (policy === 'full-auto') return run
  const rule = rulesCover(grants.rules, subject)
  if (rule) return { action: 'run', rule }
  if (policy !== 'ask' && grants.mcpAutoEdit(subject.server, subject.tool)) return run
  return { action: 'ask', why: 'MCP tools ask unless allowed' }
}
