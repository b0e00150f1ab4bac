import { unifiedDiff } from './diff'
import type { FileChangeKind, SubjectOf } from './protocol'

/*
 * The approval subject of a file change, bounded. `approval.requested` is stored, sent over the
 * WebSocket and replayed with the session, so it must not carry a huge file three times over (a
 * 50 MB deletion was ~150 MB in one event). Past the bounds below the subject carries the first
 * lines of the diff, an explicit `[TRUNCATED: …]` line (the tool contract's truncation marker), and
 * no before/after text: the user accepts or rejects the change whole. The change itself is applied
 * from the tool's own proposal, never from the event, so what is written is unaffected.
 */

/** Per side: the same 400 KB `read_file` returns; a file larger than that was never shown whole either. */
export const MAX_SUBJECT_TEXT_BYTES = 400 * 1024
/** Lines of diff in a summarised subject (and the most any full diff may have): enough to judge, cheap to render. */
export const MAX_SUBJECT_DIFF_LINES = 20_000

export interface FileSubjectInput {
  path: string
  kind: FileChangeKind
  before: string | null
  after: string | null
  agentFile?: boolean
}

/** UTF-8 size over the bound, without encoding a huge text: a UTF-16 unit is 1 to 3 bytes. */
function tooBig(text: string | null): boolean {
  if (text === null || text.length * 3 <= MAX_SUBJECT_TEXT_BYTES) return false
  if (text.length > MAX_SUBJECT_TEXT_BYTES) return true
  return new TextEncoder().encode(text).length > MAX_SUBJECT_TEXT_BYTES
}

/** The first `maxLines` lines of `diff`, then the truncation line; the diff as it is when it fits. */
export function summariseDiff(
  diff: string,
  maxLines = MAX_SUBJECT_DIFF_LINES,
): { text: string; truncated: boolean } {
  let end = 0
  for (let line = 0; line < maxLines; line++) {
    const next = diff.indexOf('\n', end)
    if (next < 0) return { text: diff, truncated: false }
    end = next + 1
  }
  if (end >= diff.length) return { text: diff, truncated: false }
  let more = 0
  for (let i = end; i < diff.length; i++) if (diff.charCodeAt(i) === 10) more++
  if (!diff.endsWith('\n')) more++
  return {
    text: `${diff.slice(0, end)}[TRUNCATED: showing first ${maxLines} lines, ${more} more available]\n`,
    truncated: true,
  }
}

/** The subject of `approval.requested` for a file change: in full when small, summarised past the bounds. */
export function fileSubject(input: FileSubjectInput): SubjectOf<'file'> {
  const diff = unifiedDiff(input.path, input.before, input.after)
  const summary = summariseDiff(diff)
  const tooLarge = summary.truncated || tooBig(input.before) || tooBig(input.after)
  return {
    kind: 'file',
    path: input.path,
    change: input.kind,
    diff: summary.text,
    before: tooLarge ? null : input.before,
    after: tooLarge ? null : input.after,
    ...(tooLarge ? { summarised: true } : {}),
    ...(input.agentFile ? { agentFile: true } : {}),
  }
}
