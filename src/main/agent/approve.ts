import { offeredRule } from '../../shared/approval-rules'
import type {
  ApprovalAnswer,
  ApprovalPolicy,
  ApprovalRule,
  ApprovalSubject,
  EventDraft,
  RulePattern,
  RuleScope,
} from '../../shared/protocol'
import type { ToolContext } from '../tools/types'
import type { Approver } from './approvals'
import { decide, type Decision, type Grants } from './decide'

/**
 * What every tool path needs to decide and ask (docs/architecture.md#approvals): the policy, the
 * grants, the approver, and where to record. One set per session run (agent/loop.ts).
 */
export interface MutationDeps {
  sessionId: string
  toolContext: ToolContext
  approver: Approver
  record(draft: EventDraft): void
  policy(): ApprovalPolicy
  grants(): Grants
  /** "Always" for a file change: stop asking for (other than agent) file changes in this session. */
  allowAllFileChanges(): void
  /** Saves an "always allow" rule the user chose on an approval. */
  saveRule(scope: RuleScope, pattern: RulePattern): ApprovalRule
  /** The user approved this call's file change themselves (it is not marked as unasked). */
  approvedByUser(callId: string): void
}

/** Decides for one call; a call a rule lets run is recorded as decided by that rule. */
export function decideCall(deps: MutationDeps, callId: string, subject: ApprovalSubject): Decision {
  const decision = decide(deps.policy(), subject, deps.grants())
  if (decision.action === 'run' && decision.rule)
    deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'policy', rule: decision.rule })
  return decision
}

/** One call to run: its id, its validated input, and the turn's signal (a stop ends a wait). */
export interface RunningCall {
  callId: string
  input: unknown
  signal: AbortSignal
  /**
   * Starts what must be done before the call may start (the checkpoint's watch, the ignored
   * folders' record: tool-runner.ts) and answers its promise, the same one on every call. The
   * call starts it once it will run or ask — after the prompt is out, so the user reads the
   * prompt while it runs — and awaits it right before it starts. A refused call never starts it.
   */
  prepare?: () => Promise<void>
}

/**
 * Asks the user about a call and, the prompt being out, starts the call's preparations
 * (`RunningCall.prepare`) while the user reads it. An approver that answers at once (no one to
 * ask: a refusal) has shown no prompt, and a refused call needs no preparing: they start only
 * when the answer has not come by the event loop's next turn.
 */
export async function askWhilePreparing(
  deps: MutationDeps,
  call: AskedCall & Pick<RunningCall, 'prepare'>,
  subject: ApprovalSubject,
  why: string,
): Promise<ApprovalAnswer> {
  const answer = askUser(deps, call, subject, why)
  const waiting = Symbol('waiting')
  const nextTurn = new Promise<typeof waiting>((resolve) => setImmediate(resolve, waiting))
  if ((await Promise.race([answer, nextTurn])) === waiting) void call.prepare?.()
  return answer
}

/** The call a question is about: its tool's name, its id, and the turn's signal (a stop ends the wait). */
export interface AskedCall {
  tool: string
  callId: string
  signal: AbortSignal
}

/** Records the request, waits for the answer, and records an "always" (saving its rule). */
export async function askUser(
  deps: MutationDeps,
  call: AskedCall,
  subject: ApprovalSubject,
  why: string,
): Promise<ApprovalAnswer> {
  const { tool, callId, signal } = call
  const rule = offeredRule(subject)
  deps.record({ type: 'approval.requested', callId, tool, subject, ...(rule ? { rule } : {}) })
  const answer = await deps.approver.requestApproval(
    {
      sessionId: deps.sessionId,
      callId,
      tool,
      subject,
      policy: deps.policy(),
      why,
      ...(rule ? { rule } : {}),
    },
    signal,
  )
  if (answer.decision !== 'always') return answer
  if (subject.kind === 'file') {
    deps.allowAllFileChanges()
    deps.record({ type: 'approval.resolved', callId, decision: 'always', by: 'user' })
    return answer
  }
  // "Always" where no rule is offered (a line with unknown words, several parts) accepts this call only.
  const saved = rule ? deps.saveRule(answer.scope, rule) : undefined
  deps.record({
    type: 'approval.resolved',
    callId,
    decision: saved ? 'always' : 'accept',
    by: 'user',
    ...(saved ? { rule: saved } : {}),
  })
  return answer
}

/** The model's message for a call the user turned down. */
export function rejection(what: string, reason: string | undefined): { ok: false; error: string } {
  return {
    ok: false,
    error: `The user rejected ${what}.${reason ? ` Their reason: ${reason}` : ' No reason was given; ask or try a different approach.'}`,
  }
}

/** The reason of a turned-down answer, if it gave one. */
export function reasonOf(answer: ApprovalAnswer): string | undefined {
  return answer.decision === 'reject' || answer.decision === 'partial' ? answer.reason : undefined
}
