import type { ApprovalAnswer, ApprovalSubject, RulePattern, SubjectOf } from '../../../shared/protocol'

/** What the user answered (shared/protocol/approval.ts); the host sends it as `approval/resolve`. */
export type { ApprovalAnswer }

/** One waiting approval, as the `approval.requested` event recorded it. */
export interface ApprovalCard<K extends ApprovalSubject['kind'] = ApprovalSubject['kind']> {
  callId: string
  /** The name the model used (`edit_file`, `run_command`, `mcp__SERVER__TOOL`). */
  tool: string
  subject: SubjectOf<K>
  /** The rule "Always allow" would save; absent: not offered (a denied command never offers one). */
  rule?: RulePattern
}

export interface ApprovalPanelProps {
  request: ApprovalCard
  /** How many more approvals wait after this one (shown as "1 of N"). */
  queued: number
  onResolve(answer: ApprovalAnswer): void
}

export function isCard<K extends ApprovalSubject['kind']>(
  card: ApprovalCard,
  kind: K,
): card is ApprovalCard & ApprovalCard<K> {
  return card.subject.kind === kind
}
