import type { ToolStep } from '../../../shared/reducer'
import { formatDuration, truncate } from './format'

/*
 * What a tool call came to, in words a person reads at a glance: "exit 1", "3 passed, 1 failed",
 * the first line of an error, "denied: …", "rejected: …", and how long it ran apart from how long
 * it waited for the user. Pure; computed from the step alone.
 */

const LINE_CHARS = 120

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? ''
  return truncate(line.trim(), LINE_CHARS)
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/** "3 passed, 1 failed, 2 skipped" from a test run's counts, or undefined without them. */
function testCounts(result: Record<string, unknown>): string | undefined {
  const passed = num(result.passed)
  const failed = num(result.failed)
  if (passed === undefined && failed === undefined) return undefined
  const parts = [`${passed ?? 0} passed`, `${failed ?? 0} failed`]
  const skipped = num(result.skipped)
  if (skipped) parts.push(`${skipped} skipped`)
  return parts.join(', ')
}

/** How a command ended: "exit 0", "timed out", "stopped by you", "killed by SIGTERM". */
export function commandEnd(result: Record<string, unknown>): string | undefined {
  if (result.timed_out === true) return 'timed out'
  if (result.stopped_by_user === true) return 'stopped by you'
  if (typeof result.signal === 'string') return `killed by ${result.signal}`
  const code = num(result.exit_code)
  return code === undefined ? undefined : `exit ${code}`
}

/** A read: "lines 1–40 of 120". */
export function readLines(result: Record<string, unknown>): string | undefined {
  const total = num(result.total_lines)
  if (total === undefined) return undefined
  const [from, to] = [num(result.start_line), num(result.end_line)]
  if (from === undefined || to === undefined) return `${total} lines`
  return from === 1 && to === total ? `${total} lines` : `lines ${from}–${to} of ${total}`
}

/** Why a call did not run: refused by the rules ("denied") or turned down by the user ("rejected"). */
function refusal(step: ToolStep): string | undefined {
  const approval = step.approval
  if (step.status === 'rejected' && approval) {
    const why = approval.reason ? `: ${firstLine(approval.reason)}` : ''
    return approval.by === 'policy' ? `denied${why}` : `rejected${why || ' by you'}`
  }
  const error = step.result?.error
  if (typeof error === 'string' && /^Refused:/.test(error)) {
    // "Refused: X. This is never allowed; …": the reason is the first sentence.
    const reason = error.replace(/^Refused:\s*/, '').split(/\.\s/)[0]
    return `denied: ${truncate(reason, LINE_CHARS)}`
  }
  return undefined
}

/** The outcome in words, or undefined while the call runs or when there is nothing to say. */
export function toolOutcome(step: ToolStep): string | undefined {
  if (step.status === 'running' || step.status === 'waiting') return undefined
  const refused = refusal(step)
  if (refused) return refused
  const result = step.result
  if (!result) return undefined
  const parts: string[] = []
  const counts = testCounts(result)
  if (counts) parts.push(counts)
  const end = commandEnd(result)
  // A test run that failed says which test in its error; its exit code adds little beside the counts.
  if (end && !(counts && end === 'exit 1')) parts.push(end)
  if (step.status === 'error' && typeof result.error === 'string' && !counts)
    parts.push(firstLine(result.error))
  if (step.status === 'ok') {
    const lines = readLines(result)
    if (lines) parts.push(lines)
  }
  return parts.length > 0 ? parts.join(' · ') : undefined
}

/**
 * How long the call itself ran, apart from the wait for the user: the command's own clock when it
 * reports one, else the whole call less the wait.
 */
export function toolTimes(step: ToolStep): { runMs?: number; waitMs?: number } {
  const waitMs = step.approval?.by === 'user' ? step.approval.waitMs : undefined
  const own = num(step.result?.duration_ms)
  const runMs =
    own ?? (step.durationMs === undefined ? undefined : Math.max(0, step.durationMs - (waitMs ?? 0)))
  return { ...(runMs !== undefined ? { runMs } : {}), ...(waitMs !== undefined ? { waitMs } : {}) }
}

/** "ran 0.45 s · waited 21.4 s for you" (either half left out when unknown). */
export function timesText(step: ToolStep): string | undefined {
  const { runMs, waitMs } = toolTimes(step)
  const parts: string[] = []
  if (runMs !== undefined && step.status !== 'rejected') parts.push(`ran ${formatDuration(runMs)}`)
  if (waitMs !== undefined && waitMs >= 1000) parts.push(`waited ${formatDuration(waitMs)} for you`)
  return parts.length > 0 ? parts.join(' · ') : undefined
}
