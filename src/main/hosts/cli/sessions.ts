import fs from 'node:fs'
import path from 'node:path'
import pc from 'picocolors'
import { reduceEvents, type SessionView, type TimelineStep } from '../../../shared/reducer'
import { stepNumberAfter, stepNumberAt, stepsOf, type Step } from '../../../shared/steps'
import { forkPoint } from './fork-replay'
import { exportDiff, exportJson, exportMarkdown, exportRaw, type ExportFormat } from '../../session/export'
import { exportOtlp } from '../../telemetry/otlp'
import { snapshotReader } from '../../timetravel/replay'
import { exportBundleToFile } from './bundle'
import { EXIT } from './exit-codes'
import { formatDuration, summarizeArgs } from './render'
import { requireSession, withStore, type StoreOptions } from './session-store'
import { inertDeep } from '../../../shared/terminalText'

function when(ts: number): string {
  return new Date(ts).toISOString().replace('T', ' ').slice(0, 16)
}

export function listSessions(opts: StoreOptions & { repo?: string; json?: boolean }): number {
  return withStore(opts, (store) => {
    const repo = opts.repo ? path.resolve(opts.repo) : undefined
    const rows = store.listSessions({ repo })
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
      return EXIT.ok
    }
    if (rows.length === 0) {
      process.stdout.write(
        `No sessions${repo ? ` for ${repo}` : ''} yet. Start one with: stepwise edit "<task>"\n`,
      )
      return EXIT.ok
    }
    const color = process.stdout.isTTY ? pc : pc.createColors(false)
    for (const s of inertDeep(rows)) {
      process.stdout.write(
        `${color.bold(s.id)}  ${when(s.createdAt)}  ${s.status.padEnd(11)} ${`${s.provider}/${s.model}`.padEnd(28)} ${s.title}\n`,
      )
      if (!repo) process.stdout.write(color.dim(`    ${s.repo}\n`))
    }
    return EXIT.ok
  })
}

type Colors = ReturnType<typeof pc.createColors>

/** The lines above the timeline: title, identity, project, parentage, size and usage. */
function sessionHeader(
  session: ReturnType<typeof requireSession>,
  view: SessionView,
  stepCount: number,
  color: Colors,
): string[] {
  return [
    `${color.bold(session.title)}`,
    `session ${session.id} · ${session.status} · ${session.provider}/${session.model}`,
    `project ${session.repo}`,
    ...(view.parent
      ? [`forked from ${view.parent.sessionId} at ${forkPoint(view.parent.step, view.parent.seq)}`]
      : []),
    `started ${when(session.createdAt)} · ${stepCount} steps, ${view.modelSteps} model replies · ${view.usage.inputTokens} in / ${view.usage.outputTokens} out tokens`,
    '',
  ]
}

function modelLine(step: Extract<TimelineStep, { kind: 'model' }>, color: Colors): string {
  const calls = step.toolCalls.length ? ` → ${step.toolCalls.map((c) => c.name).join(', ')}` : ''
  const text = step.text.trim().split('\n')[0] ?? ''
  return `${color.green('model')} reply ${step.step}${step.durationMs !== undefined ? ` (${formatDuration(step.durationMs)})` : ''}${calls}${text ? `: ${text}` : ''}`
}

function toolLine(step: Extract<TimelineStep, { kind: 'tool' }>, color: Colors): string {
  const mark =
    step.status === 'ok' ? color.green('✓') : step.status === 'rejected' ? color.yellow('✗') : color.red('✗')
  const approval = step.approval ? ` [${step.approval.decision} by ${step.approval.by}]` : ''
  const error = step.result && !step.result.ok ? ` — ${String(step.result.error)}` : ''
  return `${mark} ${step.name} ${summarizeArgs(step.args)}${approval}${error}`
}

/**
 * One timeline row after its step number; restore rows name the step they went back to.
 * Undefined for the kinds that have no row here (the finish is written after the timeline).
 */
function timelineLine(step: TimelineStep, steps: readonly Step[], color: Colors): string | undefined {
  switch (step.kind) {
    case 'user':
      return `${color.bold('user')}  ${step.text}`
    case 'model':
      return modelLine(step, color)
    case 'tool':
      return toolLine(step, color)
    case 'checkpoint':
      return `${color.cyan('◆')} checkpoint ${step.snapshotId}: ${step.paths.join(', ') || 'no change'}`
    case 'compaction':
      return `⇣ context compacted${step.onRequest ? ' on request' : ''} ${step.beforeTokens} → ${step.afterTokens} tokens`
    case 'error':
      return `${color.red('error')} ${step.message}`
    case 'restore':
      return `↺ ${step.restore} to checkpoint ${step.snapshotId}${step.toSeq !== undefined ? ` (step ${stepNumberAfter(steps, step.toSeq)})` : ''}: ${step.paths.join(', ') || 'no change'}; the present saved as checkpoint ${step.savedSnapshotId}`
    case 'switch':
      return `⇄ model ${step.provider}:${step.model}${step.from ? ` (was ${step.from.provider}:${step.from.model})` : ''}`
    case 'fork':
      return `⑂ forked at ${forkPoint(step.atStep, step.atSeq)} into ${step.childSessionId}`
    case 'finding':
      return `${step.finding.severity} ${step.finding.category} ${step.finding.file}:${step.finding.line} ${step.finding.message}`
    case 'verify':
      return `verify ${step.round}/${step.maxRounds}: ${step.passed ? 'passed' : `${step.failures.length} failing`}`
    default:
      return undefined
  }
}

export function showSession(id: string, opts: StoreOptions): number {
  return withStore(opts, (store) => {
    // Shown in a terminal: every stored string goes through the one escaping rule.
    const session = inertDeep(requireSession(store, id))
    const events = store.listEvents(session.id).map(inertDeep)
    const view = reduceEvents(events)
    // Each row by the number of its step (shared/steps.ts): what fork --at and rewind --to take.
    const steps = stepsOf(events)
    const color = process.stdout.isTTY ? pc : pc.createColors(false)
    const out = sessionHeader(session, view, steps.length, color)
    for (const step of view.steps) {
      const line = timelineLine(step, steps, color)
      if (line === undefined) continue
      const seq = color.dim(`[${String(stepNumberAt(steps, step.seq)).padStart(4)}]`)
      out.push(`${seq} ${line}`)
    }
    if (view.finishReason)
      out.push('', `finished: ${view.finishReason}${view.finishMessage ? ` — ${view.finishMessage}` : ''}`)
    process.stdout.write(`${out.join('\n')}\n`)
    return EXIT.ok
  })
}

export async function exportSession(
  id: string,
  opts: StoreOptions & { format: ExportFormat; out?: string; includeContent?: boolean },
): Promise<number> {
  if (opts.format === 'bundle') return exportBundleToFile(id, opts)
  return withStore(opts, (store) => {
    const session = requireSession(store, id)
    const events = store.listEvents(session.id)
    let text: string
    switch (opts.format) {
      case 'json':
        text = exportJson(session, events)
        break
      case 'md':
        text = exportMarkdown(session, events)
        break
      case 'raw':
        text = exportRaw(store, session.id)
        break
      case 'otlp':
        text = exportOtlp(session.id, events, { includeContent: opts.includeContent })
        break
      case 'diff':
        // Export only reads stored snapshots; it never lists the project.
        text = exportDiff(snapshotReader(store, session.repo), events)
        break
      case 'bundle':
        throw new Error('unreachable: a bundle is written by exportBundleToFile')
    }
    if (opts.out) {
      const out = path.resolve(opts.out)
      fs.writeFileSync(out, text)
      process.stdout.write(`Wrote ${out} (${Buffer.byteLength(text)} bytes)\n`)
    } else process.stdout.write(text)
    return EXIT.ok
  })
}
