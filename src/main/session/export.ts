import { unifiedDiff } from '../../shared/diff'
import type { StepwiseEvent } from '../../shared/protocol'
import { reduceEvents, type SessionView, type TimelineStep, type ToolStep } from '../../shared/reducer'
import type { SessionRow, SnapshotFile, Store } from '../store/types'
import { ignoredRecordAt } from './ignored-at'
import { inertDeep } from '../../shared/terminalText'
import { pushAll, maxOf } from '../../shared/arrays'

/**
 * `bundle` is the portable format of src/main/timetravel/bundle.ts (docs/session-format.md);
 * `otlp` the session as an OpenTelemetry trace (telemetry/otlp.ts, docs/traces.md).
 */
export const EXPORT_FORMATS = ['json', 'md', 'diff', 'raw', 'bundle', 'otlp'] as const
export type ExportFormat = (typeof EXPORT_FORMATS)[number]

/** What exporting needs from the snapshot store. */
export interface SnapshotReader {
  getManifest(snapshotId: number): SnapshotFile[]
  readFileAt(snapshotId: number, path: string): Buffer | null
}

/** `json`: the session row and every event, as stored. */
export function exportJson(session: SessionRow, events: StepwiseEvent[]): string {
  return `${JSON.stringify({ format: 'stepwise.session', version: 1, session, events }, null, 2)}\n`
}

/** `raw`: every model request and response body, in order (the seed's agent.raw.txt). */
export function exportRaw(store: Pick<Store, 'listTraffic'>, sessionId: string): string {
  return store
    .listTraffic(sessionId)
    .map((t) => {
      const head = `=== ${t.direction} ${t.provider} ${t.url}${t.status ? ` ${t.status}` : ''} @ ${new Date(t.ts).toISOString()} ===`
      return `${head}\n${t.body}\n`
    })
    .join('\n')
}

/** The baseline snapshot and the latest checkpoint of a session, from its events. */
export function sessionSnapshots(events: StepwiseEvent[]): { baseline?: number; latest?: number } {
  let baseline: number | undefined
  let latest: number | undefined
  for (const e of events) {
    if (e.type === 'session.started') baseline = e.baselineSnapshotId
    if (e.type === 'checkpoint.created') latest = e.snapshotId
  }
  return { baseline, latest: latest ?? baseline }
}

function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8192).includes(0)
}

/**
 * What the last checkpoint after a command found changed under ignored folders, which snapshots
 * leave out: a comment block ahead of the diff (`git apply` skips text before the first patch).
 */
function ignoredPreamble(events: StepwiseEvent[]): string {
  // The newest record wins: it is the net state (an empty list: all put back).
  const ignored = ignoredRecordAt(events)
  if (ignored.length === 0) return ''
  const lines = ignored.map(
    (c) =>
      `#   ${c.status} ${c.path}${c.size !== undefined ? ` (${c.size} bytes${c.sha256 ? `, sha256 ${c.sha256}` : ''}${c.stored ? ', kept' : ''})` : ''}`,
  )
  const head =
    '# Changed under ignored folders since the session started (not in the snapshots, so not below;\n' +
    '# "kept": its bytes are stored with the session, shown by the app\'s preview of the step):'
  return `${head}\n${lines.join('\n')}\n\n`
}

/** `diff`: the session's net change, baseline → last checkpoint, as one unified diff. */
export function exportDiff(snapshots: SnapshotReader, events: StepwiseEvent[]): string {
  const { baseline, latest } = sessionSnapshots(events)
  const preamble = ignoredPreamble(events)
  if (baseline === undefined || latest === undefined || baseline === latest) return preamble
  const before = new Map(snapshots.getManifest(baseline).map((f) => [f.path, f]))
  const after = new Map(snapshots.getManifest(latest).map((f) => [f.path, f]))
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort()
  const parts: string[] = []
  for (const p of paths) {
    const a = before.get(p)
    const b = after.get(p)
    if (a && b && a.hash === b.hash) continue
    const oldBuf = a ? snapshots.readFileAt(baseline, p) : null
    const newBuf = b ? snapshots.readFileAt(latest, p) : null
    if ((oldBuf && isBinary(oldBuf)) || (newBuf && isBinary(newBuf))) {
      parts.push(`diff --git a/${p} b/${p}\nBinary files differ\n`)
      continue
    }
    parts.push(
      unifiedDiff(p, oldBuf ? oldBuf.toString('utf8') : null, newBuf ? newBuf.toString('utf8') : null),
    )
  }
  return preamble + parts.join('')
}

function fence(text: string): string {
  const longest = maxOf(
    [...text.matchAll(/`+/g)].map((m) => m[0].length),
    2,
  )
  const ticks = '`'.repeat(longest + 1)
  return `${ticks}\n${text}\n${ticks}`
}

/** `md`: a readable transcript, built from the same reducer the UI uses. */
export function exportMarkdown(raw: SessionRow, events: StepwiseEvent[]): string {
  // A transcript is read in terminals and editors: control sequences are shown, not acted on.
  const session = inertDeep(raw)
  const view = reduceEvents(events.map(inertDeep))
  const lines = markdownHeader(session, view)
  for (const step of view.steps) pushAll(lines, stepMarkdown(step))
  if (view.finishReason)
    lines.push(
      `---`,
      '',
      `Finished: ${view.finishReason}${view.finishMessage ? ` — ${view.finishMessage}` : ''}`,
      '',
    )
  return lines.join('\n')
}

/** The transcript's title and the session's facts. */
function markdownHeader(session: SessionRow, view: SessionView): string[] {
  return [
    `# ${session.title}`,
    '',
    `- Session: \`${session.id}\``,
    `- Project: \`${session.repo}\``,
    `- Model: ${session.provider} / ${session.model}`,
    `- Started: ${new Date(session.createdAt).toISOString()}`,
    `- Status: ${session.status}`,
    `- Tokens: ${view.usage.inputTokens} in / ${view.usage.outputTokens} out`,
    '',
  ]
}

/** One step of the timeline as transcript lines. */
function stepMarkdown(step: TimelineStep): string[] {
  switch (step.kind) {
    case 'user':
      return [`## User [${step.seq}]`, '', step.text, '']
    case 'model':
      return [
        `## Assistant, step ${step.step} [${step.seq}]`,
        '',
        ...(step.text.trim() ? [step.text.trim(), ''] : []),
      ]
    case 'tool':
      return toolMarkdown(step)
    case 'checkpoint':
      return [`*Checkpoint ${step.snapshotId}: ${step.paths.join(', ') || 'no change'} [${step.seq}]*`, '']
    case 'compaction':
      return compactionMarkdown(step)
    case 'finding': {
      const f = step.finding
      return [
        `- **${f.severity}** ${f.category} \`${f.file}:${f.line}\` — ${f.message}${f.suggestion ? ` Suggestion: ${f.suggestion}` : ''} [${step.seq}]`,
        '',
      ]
    }
    case 'restore':
      return [
        `*Restored (${step.restore}) to checkpoint ${step.snapshotId}${step.toSeq !== undefined ? `, step ${step.toSeq}` : ''}: ${step.paths.join(', ') || 'no change'}; the present saved as checkpoint ${step.savedSnapshotId} [${step.seq}]*`,
        '',
      ]
    case 'switch':
      return [
        `*Model switched to ${step.model} (${step.provider})${step.from ? ` from ${step.from.model} (${step.from.provider})` : ''} [${step.seq}]*`,
        '',
      ]
    case 'fork':
      return [`*Forked at step ${step.atSeq} into session \`${step.childSessionId}\` [${step.seq}]*`, '']
    case 'verify':
      return [
        `*Verify round ${step.round}/${step.maxRounds}: ${step.passed ? 'build and tests pass' : step.failures.join('; ')} [${step.seq}]*`,
        '',
      ]
    case 'error':
      return [`> **Error** (${step.code}): ${step.message}${step.hint ? ` ${step.hint}` : ''}`, '']
  }
  return []
}

/** A tool call: its arguments, the diff it asked approval for, the decision, an error. */
function toolMarkdown(step: ToolStep): string[] {
  const status = step.status === 'ok' ? 'ok' : step.status
  const lines = [
    `### Tool \`${step.name}\` — ${status} [${step.seq}]`,
    '',
    fence(JSON.stringify(step.args, null, 2)),
    '',
  ]
  if (step.approval?.diff) lines.push(fence(step.approval.diff.trimEnd()), '')
  if (step.approval && step.approval.decision !== 'pending') {
    lines.push(
      `Approval: ${step.approval.decision} (by ${step.approval.by})${step.approval.reason ? ` — ${step.approval.reason}` : ''}`,
      '',
    )
  }
  if (step.result && !step.result.ok) lines.push(`Error: ${String(step.result.error)}`, '')
  return lines
}

/** A compaction, and the summary when the user asked for it: every later turn starts from it. */
function compactionMarkdown(step: Extract<TimelineStep, { kind: 'compaction' }>): string[] {
  const lines = [
    `*Context compacted${step.onRequest ? ' on request' : ''}: ${step.beforeTokens} → ${step.afterTokens} tokens [${step.seq}]*`,
    '',
  ]
  if (step.onRequest && step.summary) {
    pushAll(
      lines,
      step.summary.split('\n').map((l) => `> ${l}`),
    )
    lines.push('')
  }
  return lines
}
