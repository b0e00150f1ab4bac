import fs from 'node:fs'
import path from 'node:path'
import type { Finding, StepwiseEvent } from '../../shared/protocol'
import { refusingApprover } from '../agent/approvals'
import type { TurnOutcome } from '../agent/loop'
import { findResourcesDir } from '../config/resources'
import type { RetryOptions } from '../providers/retry'
import type { ModelProvider, ProviderConfig } from '../providers/types'
import { createSandbox } from '../containment/sandbox'
import { startSession, type SessionSetup } from '../session/start'
import type { Store } from '../store/types'
import { gitReadTools } from '../tools/git'
import { readTools } from '../tools/read'
import { codeTools } from '../tools/code'
import { reviewTools } from '../tools/review'
import type { ToolDefinition } from '../tools/types'
import { createReportFindingTool } from './finding-tool'
import { resolveTarget } from './target'
import { reviewTask } from './task'

/*
 * A code review (`stepwise review`): the agent loop of an edit session under the
 * read-only policy, offered only tools that change nothing, plus report_finding.
 * The session is stored like any other, findings as `review.finding` events.
 */

export interface ReviewOptions {
  /** The project folder, already resolved. */
  repo: string
  /** A file, a folder, `git:REF`, `git:A..B`, or undefined for the uncommitted changes. */
  target?: string
  /** What to look at hardest ("security", "error handling in the parser"). */
  focus?: string
  provider: ProviderConfig
  emit?: (event: StepwiseEvent) => void
  maxSteps?: number
  retry?: Partial<Omit<RetryOptions, 'signal' | 'onRetry'>>
  signal?: AbortSignal
  /** For tests: a provider built elsewhere. */
  providerOverride?: ModelProvider
  /** MCP servers' tools (started by the host); a review offers those marked read-only. */
  mcp?: SessionSetup['mcp']
}

export interface ReviewResult {
  ok: true
  /** null when there was nothing to review, so no session was opened. */
  sessionId: string | null
  /** What was reviewed, in words. */
  target: string
  /** Sorted by file, then line. */
  findings: Finding[]
  /** The model's closing summary. */
  summary: string
  /** How the session ended; absent when there was nothing to review. */
  outcome?: TurnOutcome
}

/** The tools a review offers: reading, the review family, git's read tools — nothing that changes anything. */
export const REVIEW_READ_TOOLS: readonly ToolDefinition[] = [
  ...readTools,
  ...reviewTools,
  ...codeTools,
  ...gitReadTools,
]

export function reviewInstructions(resourcesDir = findResourcesDir()): string {
  return fs.readFileSync(path.join(resourcesDir, 'prompts', 'review.md'), 'utf8')
}

export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1
  return a.line - b.line
}

/**
 * Resolves the target (an error value for the user when it is bad), then runs the
 * review to its end. Findings come back sorted and were emitted as they came.
 */
export async function runReview(
  store: Store,
  opts: ReviewOptions,
): Promise<ReviewResult | { ok: false; error: string }> {
  const sandbox = await createSandbox(opts.repo)
  const scope = await resolveTarget(sandbox, opts.target)
  if (!scope.ok) return scope
  if (scope.files.length === 0)
    return {
      ok: true,
      sessionId: null,
      target: scope.label,
      findings: [],
      summary: `Nothing to review: no files in ${scope.label}.`,
    }

  const findings: Finding[] = []
  let sessionId: string | undefined
  // Tools run one at a time, so the last tool.started names the report_finding call in progress.
  let currentCallId = ''
  const emit = (event: StepwiseEvent): void => {
    if (event.type === 'session.started') sessionId = event.sessionId
    if (event.type === 'tool.started') currentCallId = event.callId
    opts.emit?.(event)
  }
  const reportFinding = createReportFindingTool({
    checkLineBounds: scope.linesMatchWorkingTree,
    onFinding: (finding) => {
      if (!sessionId) throw new Error('report_finding ran before the session started')
      findings.push(finding)
      const event = store.appendEvent(sessionId, { type: 'review.finding', callId: currentCallId, finding })
      opts.emit?.(event)
    },
  })

  const session = await startSession(store, {
    task: reviewTask(scope, opts.focus),
    repo: sandbox.root,
    provider: opts.provider,
    providerOverride: opts.providerOverride,
    policy: 'read-only',
    maxSteps: opts.maxSteps,
    approver: refusingApprover,
    emit,
    retry: opts.retry,
    tools: [...REVIEW_READ_TOOLS, reportFinding],
    systemExtra: reviewInstructions(),
    mcp: opts.mcp,
  })
  const outcome = await session.run(opts.signal ?? new AbortController().signal)
  return {
    ok: true,
    sessionId: session.sessionId,
    target: scope.label,
    findings: [...findings].sort(compareFindings),
    summary: outcome.reason === 'done' ? outcome.finalText.trim() : (outcome.message ?? ''),
    outcome,
  }
}
