import { fileSubject, summariseDiff } from '../../shared/approval-diff'
import type { EventDraft, ProposedChange, ToolCall } from '../../shared/protocol'
import { isAgentFile } from '../containment/agent-files'
import { findTool, parseToolCall } from '../tools/registry'
import { isFileChange, isFileChangeTool, type ToolDefinition } from '../tools/types'
import { isRecord } from '../../shared/records'
import type { MutationDeps } from './approve'
import { decide } from './decide'

/*
 * A model step that makes several file changes the user will be asked about announces them all
 * before the first is asked (`change.proposed`): the app shows one review of the step — its file
 * list, "1 of N", accept or reject all, each file — and the timeline shows every change from the
 * start. Each call is still asked, answered and applied on its own, in order (mutations.ts), so
 * what the model is told per call, per hunk, is unchanged. Proposing writes nothing.
 */

/** A preview is for judging at a glance; the whole diff comes with the call's own request. */
export const PREVIEW_DIFF_LINES = 400

/** The changes of `calls` that will ask, in call order; fewer than two: none (one card suffices). */
export async function proposedChanges(
  deps: Pick<MutationDeps, 'policy' | 'grants' | 'toolContext'>,
  tools: readonly ToolDefinition[],
  calls: readonly ToolCall[],
): Promise<ProposedChange[]> {
  if (deps.policy() === 'read-only') return []
  const candidates = calls.filter((call) => {
    const tool = findTool(call.name, tools)
    return tool !== undefined && isFileChangeTool(tool)
  })
  if (candidates.length < 2) return []
  const changes: ProposedChange[] = []
  const seen = new Set<string>()
  for (const call of candidates) {
    const tool = findTool(call.name, tools)
    if (!tool || !isFileChangeTool(tool)) continue
    const parsed = parseToolCall(tool, call.arguments)
    if (!parsed.ok) continue
    const asked = pathOf(parsed.input)
    // A second change of one file is proposed against the first's outcome: its diff waits for that.
    if (asked !== undefined && seen.has(asked)) {
      changes.push({ callId: call.id, tool: tool.name, path: asked, change: 'modify', follows: true })
      continue
    }
    const change = await tool.propose(parsed.input, deps.toolContext)
    // A call that fails at once (a bad path, nothing to change) is never asked: the model is told.
    if (!isFileChange(change)) continue
    const subject = fileSubject({
      path: change.path,
      kind: change.kind,
      before: change.before,
      after: change.after,
      agentFile: isAgentFile(change.path),
    })
    if (decide(deps.policy(), subject, deps.grants()).action !== 'ask') continue
    if (asked !== undefined) seen.add(asked)
    seen.add(change.path)
    changes.push({
      callId: call.id,
      tool: tool.name,
      path: change.path,
      change: change.kind,
      diff: summariseDiff(subject.diff, PREVIEW_DIFF_LINES).text,
    })
  }
  return changes.length >= 2 ? changes : []
}

/** The path a file-change call names, when its input has one. */
function pathOf(input: unknown): string | undefined {
  const path = isRecord(input) ? input.path : undefined
  return typeof path === 'string' ? path : undefined
}

/** Records a `change.proposed` for each of the step's changes when it has two or more changes that will ask. */
export async function announceChanges(
  deps: Pick<MutationDeps, 'policy' | 'grants' | 'toolContext' | 'record'>,
  tools: readonly ToolDefinition[],
  calls: readonly ToolCall[],
  step: number,
): Promise<void> {
  const changes = await proposedChanges(deps, tools, calls)
  changes.forEach((change, index) =>
    deps.record({ type: 'change.proposed', step, index, count: changes.length, change } satisfies EventDraft),
  )
}
