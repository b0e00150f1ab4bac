import { fileSubject } from '../../shared/approval-diff'
import { unifiedDiff } from '../../shared/diff'
import type { ApprovalSubject, SubjectOf } from '../../shared/protocol'
import { isAgentFile } from '../containment/agent-files'
import { commandParts } from '../policy/parts'
import { applyFileChange, isApplyConflict } from '../tools/apply'
import {
  isFileChange,
  type ActionPlan,
  type ActionTool,
  type FileChange,
  type FileChangeTool,
  type ResultFields,
  type ToolContext,
  type ToolFailure,
  type ToolResult,
} from '../tools/types'
import {
  askUser,
  askWhilePreparing,
  decideCall,
  reasonOf,
  rejection,
  type AskedCall,
  type MutationDeps,
  type RunningCall,
} from './approve'

export type { MutationDeps, RunningCall } from './approve'

/**
 * How mutating tools run (docs/architecture.md#approvals): `decide` says run, ask or refuse; the
 * user's decision goes back to the model exactly; nothing is written or run before that decision.
 */

const readOnlyError = (tool: string) => ({
  ok: false as const,
  error: `${tool} is not available: this session is read-only (approval policy "read-only"). Describe the change instead.`,
})

export async function runFileChange(
  deps: MutationDeps,
  tool: FileChangeTool,
  call: RunningCall,
): Promise<ToolResult> {
  if (deps.policy() === 'read-only') return readOnlyError(tool.name)
  const change = await tool.propose(call.input, deps.toolContext)
  if (!isFileChange(change)) return change
  const subject = fileSubject({
    path: change.path,
    kind: change.kind,
    before: change.before,
    after: change.after,
    agentFile: isAgentFile(change.path),
  })
  const { callId, signal } = call
  const decision = decideCall(deps, callId, subject)
  if (decision.action === 'refuse') return readOnlyError(tool.name)
  let asked: AskedCall | undefined
  let answer: ChangeAnswer = { ok: true, note: {} }
  if (decision.action === 'ask') {
    asked = { tool: tool.name, callId, signal }
    answer = await askAboutChange(deps, asked, change, { subject, why: decision.why })
  }
  if (!answer.ok) return answer
  const applied = await applyOrSettle(deps, change, answer.finalAfter, asked)
  return applied.ok ? { ...applied, ...answer.note } : applied
}

/**
 * What the user's answer to a file change leaves to write: their own version when they edited it or
 * took some hunks (with what to tell the model of that), or the rejection the model reads.
 */
type ChangeAnswer = ToolFailure | { ok: true; finalAfter?: string; note: ResultFields }

async function askAboutChange(
  deps: MutationDeps,
  call: AskedCall,
  change: FileChange,
  question: { subject: SubjectOf<'file'>; why: string },
): Promise<ChangeAnswer> {
  const { callId } = call
  const { subject, why } = question
  const answer = await askUser(deps, call, subject, why)
  if (answer.decision === 'reject' || answer.decision === 'regenerate') {
    const reason = answer.decision === 'reject' ? answer.reason : 'Redo this change differently.'
    deps.record({ type: 'approval.resolved', callId, decision: 'reject', by: 'user', reason })
    return rejection(`this change to ${change.path}`, reason)
  }
  deps.approvedByUser(callId)
  // A summarised change offers no editing: an edited answer to it is taken as accepting it whole.
  if (
    !subject.summarised &&
    (answer.decision === 'edited' || answer.decision === 'partial') &&
    answer.editedContent !== change.after
  ) {
    const finalAfter = answer.editedContent
    const appliedDiff = unifiedDiff(change.path, change.before, finalAfter)
    const reason = answer.decision === 'partial' ? answer.reason : undefined
    deps.record({
      type: 'approval.resolved',
      callId,
      decision: answer.decision,
      by: 'user',
      appliedDiff,
      reason,
    })
    const partial = answer.decision === 'partial'
    return { ok: true, finalAfter, note: userEditNote({ partial, appliedDiff, reason }) }
  }
  if (answer.decision !== 'always')
    deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'user' })
  return { ok: true, note: {} }
}

/** What the model is told when the user wrote their own version of its change. */
function userEditNote(edit: { partial: boolean; appliedDiff: string; reason?: string }): ResultFields {
  const { appliedDiff, reason } = edit
  return edit.partial
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
}

/**
 * Writes the change. When the file changed on disk while the change waited for the user (`asked`),
 * they decide: apply anyway, keep theirs, or let the model redo it.
 */
async function applyOrSettle(
  deps: MutationDeps,
  change: FileChange,
  finalAfter: string | undefined,
  asked: AskedCall | undefined,
): Promise<ToolResult> {
  const applied = await applyFileChange(change, deps.toolContext, finalAfter)
  if (!isApplyConflict(applied)) return applied
  const conflict: ApprovalSubject = { kind: 'conflict', path: change.path, message: applied.error }
  const settle = asked ? decideCall(deps, asked.callId, conflict) : undefined
  if (!asked || settle?.action !== 'ask') return { ok: false, error: applied.error }
  const decided = await resolveConflict(deps, asked, conflict, settle.why)
  if (decided === 'skip')
    return {
      ok: false,
      error: `"${change.path}" changed on disk while your change waited; the user chose to keep their version and skip your change. Do not redo it unless asked.`,
    }
  if (decided === 'regenerate') return { ok: false, error: applied.error }
  const forced = await applyFileChange(change, deps.toolContext, finalAfter, { force: true })
  return isApplyConflict(forced) ? { ok: false, error: forced.error } : forced
}

/** Apply anyway, skip, or let the model redo it (the default without a user to ask). */
async function resolveConflict(
  deps: MutationDeps,
  call: AskedCall,
  subject: ApprovalSubject,
  why: string,
): Promise<'apply' | 'skip' | 'regenerate'> {
  const { callId } = call
  const answer = await askUser(deps, call, subject, why)
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

/** The subject of an action: its command line (or summary), the policy's verdict, and its parts. */
export async function commandSubject(plan: ActionPlan, ctx: ToolContext): Promise<SubjectOf<'command'>> {
  const command = plan.command ?? { command: plan.summary, cwd: '.' }
  const parts =
    plan.command && plan.verdict === 'ask' ? await commandParts(plan.command.command, ctx) : undefined
  return {
    kind: 'command',
    command: command.command,
    cwd: command.cwd,
    verdict: plan.verdict,
    ...(plan.reason ? { reason: plan.reason } : {}),
    ...(plan.unconfined ? { unconfined: plan.unconfined } : {}),
    ...(parts ? { parts } : {}),
  }
}

export async function runAction(
  deps: MutationDeps,
  tool: ActionTool,
  call: RunningCall,
  /** Set when the command is handed to the sandbox (a refused one changed nothing). */
  ran?: { executed: boolean },
): Promise<ToolResult> {
  const { callId, signal, prepare } = call
  const policy = deps.policy()
  if (policy === 'read-only') return readOnlyError(tool.name)
  const plan = await tool.plan(call.input, deps.toolContext)
  if (!plan.ok) return plan
  const subject = await commandSubject(plan, deps.toolContext)
  const decision = decideCall(deps, callId, subject)
  if (decision.action === 'refuse') {
    if (plan.verdict === 'deny')
      return {
        ok: false,
        error: `Refused: ${plan.reason ?? `${plan.summary} is on the deny list`}. This is never allowed; find another way or ask the user to do it.`,
      }
    if (plan.unconfined) return unconfinedRefusal(plan.unconfined, policy)
    return readOnlyError(tool.name)
  }
  if (decision.action === 'ask') {
    // The prompt carries the warning, so the user knows this one would run unconfined.
    const why = plan.unconfined ? `WARNING: ${plan.unconfined}` : decision.why
    const answer = await askWhilePreparing(deps, { tool: tool.name, callId, signal, prepare }, subject, why)
    if (answer.decision !== 'accept' && answer.decision !== 'always') {
      const reason = reasonOf(answer)
      deps.record({ type: 'approval.resolved', callId, decision: 'reject', by: 'user', reason })
      return rejection(`running ${plan.summary}`, reason)
    }
    if (answer.decision === 'accept')
      deps.record({ type: 'approval.resolved', callId, decision: 'accept', by: 'user' })
  }
  await prepare?.()
  if (ran) ran.executed = true
  return tool.execute(plan, deps.toolContext, {
    onOutput: (stream, text) => {
      if (text) deps.record({ type: 'tool.output', callId, stream, text })
    },
  })
}
