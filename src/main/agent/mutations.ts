import { unifiedDiff } from '../../shared/diff'
import type { ApprovalPolicy, EventDraft } from '../../shared/protocol'
import { applyFileChange, isApplyConflict } from '../tools/apply'
import type { ActionTool, MutatingTool, ToolContext, ToolResult } from '../tools/types'
import type { Approver } from './approvals'

/**
 * How mutating tools run (docs/architecture.md#approval-policies): the policy decides whether to ask; the
 * user's decision goes back to the model exactly; nothing is written or run
 * before that decision.
 */
export interface MutationDeps {
  sessionId: string
  toolContext: ToolContext
  approver: Approver
  record(draft: EventDraft): void
  policy(): ApprovalPolicy
  /** "always" for a file change: stop asking for file changes in this session. */
  allowAllFileChanges(): void
  /** Command lines the user answered "always" to in this session. */
  allowedCommands: Set<string>
}

const readOnlyError = (tool: string) => ({
  ok: false as const,
  error: `${tool} is not available: this session is read-only (approval policy "read-only"). Describe the change instead.`,
})

function rejection(what: string, reason: string | undefined): ToolResult {
  return {
    ok: false,
    error: `The user rejected ${what}.${reason ? ` Their reason: ${reason}` : ' No reason was given; ask or try a different approach.'}`,
  }
}

export async function runFileChange(
  deps: MutationDeps,
  tool: MutatingTool,
  callId: string,
  input: unknown,
  signal: AbortSignal,
): Promise<ToolResult> {
  const policy = deps.policy()
  if (policy === 'read-only') return readOnlyError(tool.name)
  const change = await tool.propose(input, deps.toolContext)
  if ('ok' in change) return change
  const diff = unifiedDiff(change.path, change.before, change.after)
  let finalAfter: string | undefined
  let note: Record<string, unknown> = {}
  if (policy === 'ask') {
    deps.record({
      type: 'approval.requested',
      callId,
      tool: tool.name,
      change: { path: change.path, kind: change.kind, diff, before: change.before, after: change.after },
    })
    const answer = await deps.approver.requestApproval(
      { kind: 'file', sessionId: deps.sessionId, callId, tool: tool.name, change, diff },
      signal,
    )
    if (answer.decision === 'reject' || answer.decision === 'regenerate') {
      const reason = answer.decision === 'reject' ? answer.reason : 'Redo this change differently.'
      deps.record({ type: 'approval.resolved', callId, decision: 'reject', by: 'user', reason })
      return rejection(`this change to ${change.path}`, reason)
    }
    if (answer.decision === 'always') deps.allowAllFileChanges()
    if ((answer.decision === 'edited' || answer.decision === 'partial') && answer.content !== change.after) {
      finalAfter = answer.content
      const appliedDiff = unifiedDiff(change.path, change.before, answer.content)
      const partial = answer.decision === 'partial'
      const reason = partial ? answer.reason : undefined
      deps.record({
        type: 'approval.resolved',
        callId,
        decision: answer.decision,
        by: 'user',
        appliedDiff,
        reason,
      })
      note = partial
        ? {
            user_partially_accepted: true,
            note: 'The user accepted only some hunks of your proposal and rejected the others. applied_diff is exactly what was written (against the file before your change); the rejected hunks were not applied. Build on that version and do not re-propose the rejected hunks unless asked.',
            applied_diff: appliedDiff,
            ...(reason ? { reason } : {}),
          }
        : {
            user_edited: true,
            note: 'The user edited your proposal before accepting it. applied_diff is what was actually written; build on that version.',
            applied_diff: appliedDiff,
          }
    } else {
      deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'user' })
    }
  }
  let applied = await applyFileChange(change, deps.toolContext, finalAfter)
  // The file changed on disk while the change waited for the user: they decide, when they are asked.
  if (isApplyConflict(applied) && policy === 'ask') {
    const decided = await resolveConflict(deps, tool.name, callId, change.path, applied.error, signal)
    if (decided === 'apply')
      applied = await applyFileChange(change, deps.toolContext, finalAfter, { force: true })
    else if (decided === 'skip')
      return {
        ok: false,
        error: `"${change.path}" changed on disk while your change waited; the user chose to keep their version and skip your change. Do not redo it unless asked.`,
      }
  }
  if (isApplyConflict(applied)) return { ok: false, error: applied.error }
  return applied.ok ? { ...applied, ...note } : applied
}

/** Apply anyway, skip, or let the model redo it (the default without a user to ask). */
async function resolveConflict(
  deps: MutationDeps,
  tool: string,
  callId: string,
  path: string,
  message: string,
  signal: AbortSignal,
): Promise<'apply' | 'skip' | 'regenerate'> {
  deps.record({ type: 'approval.requested', callId, tool, conflict: { path, message } })
  const answer = await deps.approver.requestApproval(
    { kind: 'conflict', sessionId: deps.sessionId, callId, tool, path, message },
    signal,
  )
  if (answer.decision === 'reject') {
    deps.record({ type: 'approval.resolved', callId, decision: 'reject', by: 'user', reason: 'skipped' })
    return 'skip'
  }
  if (answer.decision === 'regenerate') {
    deps.record({ type: 'approval.resolved', callId, decision: 'regenerate', by: 'user' })
    return 'regenerate'
  }
  deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'user' })
  return 'apply'
}

function unconfinedRefusal(problem: string, policy: string): ToolResult {
  return {
    ok: false,
    error: `Refused: ${problem}. Under the "${policy}" approval policy commands only run sandboxed. Do not retry; tell the user: fix the sandbox, or set "allowUnsandboxed": true in the command settings, or use the "ask" policy to approve each command.`,
  }
}

export async function runAction(
  deps: MutationDeps,
  tool: ActionTool,
  callId: string,
  input: unknown,
  signal: AbortSignal,
  /** Set when the command is handed to the sandbox (a refused one changed nothing). */
  ran?: { executed: boolean },
): Promise<ToolResult> {
  const policy = deps.policy()
  if (policy === 'read-only') return readOnlyError(tool.name)
  const plan = await tool.plan(input, deps.toolContext)
  if ('ok' in plan) return plan
  if (plan.verdict === 'deny') {
    return {
      ok: false,
      error: `Refused: ${plan.reason ?? `${plan.summary} is on the deny list`}. This is never allowed; find another way or ask the user to do it.`,
    }
  }
  // No sandbox here and the user has not allowed unconfined commands: only "ask" may run them, one by one.
  if (plan.unconfined && policy !== 'ask') return unconfinedRefusal(plan.unconfined, policy)
  const key = plan.command ? `${plan.command.cwd}\0${plan.command.command}` : plan.summary
  const mustAsk =
    ((plan.verdict === 'ask' && policy !== 'full-auto') || plan.unconfined !== undefined) &&
    !deps.allowedCommands.has(key)
  if (mustAsk) {
    deps.record({
      type: 'approval.requested',
      callId,
      tool: tool.name,
      command: plan.command ?? { command: plan.summary, cwd: '.' },
    })
    // The prompt carries the warning, so the user knows this one would run unconfined.
    const shown = plan.unconfined
      ? { ...plan, reason: [plan.reason, `WARNING: ${plan.unconfined}`].filter(Boolean).join('; ') }
      : plan
    const answer = await deps.approver.requestApproval(
      { kind: 'action', sessionId: deps.sessionId, callId, tool: tool.name, plan: shown },
      signal,
    )
    if (answer.decision !== 'accept' && answer.decision !== 'always') {
      const reason = answer.decision === 'reject' || answer.decision === 'partial' ? answer.reason : undefined
      deps.record({ type: 'approval.resolved', callId, decision: 'reject', by: 'user', reason })
      return rejection(`running ${plan.summary}`, reason)
    }
    if (answer.decision === 'always') deps.allowedCommands.add(key)
    deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'user' })
  }
  if (ran) ran.executed = true
  return tool.execute(plan, deps.toolContext, {
    onOutput: (stream, text) => {
      if (text) deps.record({ type: 'tool.output', callId, stream, text })
    },
  })
}
