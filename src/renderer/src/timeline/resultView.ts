import type { ToolStep } from '../../../shared/reducer'
import { commandEnd, readLines } from './outcome'
import { prettyJson } from './format'
import { isRecord } from '../../../shared/records'

/*
 * How the details pane shows a tool's result to a person, decided from the result's shape: a read
 * as its path, line range and text; a change as a diff; a command's output as a terminal block with
 * its exit code; an error as its words. Anything else stays JSON. Pure; the raw JSON is always one
 * click away in the pane.
 */

export type ResultView =
  | { kind: 'read'; path: string; range: string; content: string; note?: string }
  | { kind: 'diff'; path?: string; summary?: string; diff: string }
  | { kind: 'terminal'; command?: string; output: string; end?: string; failed: boolean }
  | { kind: 'error'; message: string }
  | { kind: 'json'; text: string }

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

function commandOf(args: unknown): string | undefined {
  // An array has no `command`: reading it off one gave undefined as well.
  return isRecord(args) ? str(args.command) : undefined
}

/** The view of a finished call's result; undefined while it has none. */
export function resultView(
  step: Pick<ToolStep, 'result' | 'args' | 'status' | 'approval'>,
): ResultView | undefined {
  const r = step.result
  if (!r) return undefined
  const output = str(r.output)
  if (
    output !== undefined &&
    // A command's result, whatever its end: JSON never carries undefined, so a present field is defined.
    (r.exit_code !== undefined ||
      r.timed_out !== undefined ||
      r.signal !== undefined ||
      r.stopped_by_user !== undefined)
  ) {
    const end = commandEnd(r)
    const failed = r.ok === false || (typeof r.exit_code === 'number' && r.exit_code !== 0)
    return { kind: 'terminal', command: commandOf(step.args), output, failed, ...(end ? { end } : {}) }
  }
  const error = str(r.error)
  if (r.ok === false && error !== undefined) return { kind: 'error', message: error }
  const path = str(r.path)
  const content = str(r.content)
  if (path !== undefined && content !== undefined) {
    const note = str(r.truncated)
    return { kind: 'read', path, range: readLines(r) ?? '', content, ...(note ? { note } : {}) }
  }
  // An edit tells the model its change in numbers ("+1 -1"); the diff itself is the approval's
  // (the applied one when the user edited it or took some hunks).
  const stat = str(r.diff)
  const diff = stat !== undefined && isUnified(stat) ? stat : r.ok === true ? step.approval?.diff : undefined
  if (diff) {
    const lines = typeof r.lines === 'number' ? `${r.lines} ${r.lines === 1 ? 'line' : 'lines'}` : undefined
    const counts = stat !== undefined && !isUnified(stat) ? stat : undefined
    const summary = [str(r.action), counts, lines].filter(Boolean).join(' · ')
    return { kind: 'diff', diff, ...(path ? { path } : {}), ...(summary ? { summary } : {}) }
  }
  return { kind: 'json', text: prettyJson(r) }
}

function isUnified(text: string): boolean {
  return /^(---|@@)/m.test(text)
}
