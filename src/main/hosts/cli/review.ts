import path from 'node:path'
import { Command, InvalidArgumentError, Option } from 'commander'
import pc from 'picocolors'
import { isHostNotice, type Finding, type FinishReason, type ProviderId } from '../../../shared/protocol'
import { defaultDataDir } from '../../config/paths'
import type { ReviewResult } from '../../review/review'
import { createCoreService } from '../../service/service'
import { closeSnapshotters, DEFAULT_MAX_STEPS } from '../../session/start'
import { exitCodeFor, resolveProviderConfig, resolveRepo } from './edit'
import { onStopSignals } from './signals'
import { EXIT, UsageError } from './exit-codes'
import { mcpConfigOption, startCliMcp } from './mcp-start'
import { humanRenderer, type EventRenderer } from './render'
import { inertDeep, inertText } from '../../../shared/terminalText'
import { openCliStore } from './session-store'
import { maxOf } from '../../../shared/arrays'
import { providerIds } from '../../../shared/providers'

/** `stepwise review [TARGET]` (docs/review.md): findings on stdout, progress on stderr. */

export interface ReviewCliOptions {
  repo?: string
  provider?: ProviderId
  model?: string
  baseUrl?: string
  focus?: string
  json?: boolean
  maxSteps?: number
  dataDir?: string
  mcpConfig?: string[]
}

/** The document `--json` prints. */
export interface ReviewJson {
  sessionId: string | null
  target: string
  /** How the review ended: done, step-limit, error, interrupted, or nothing-to-review. */
  reason: FinishReason | 'nothing-to-review'
  findings: Finding[]
  counts: Record<Finding['severity'], number>
  summary: string
}

export async function runReviewCommand(target: string | undefined, opts: ReviewCliOptions): Promise<number> {
  const repo = resolveRepo(opts.repo)
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const store = openCliStore(dataDir)
  // Progress goes to stderr in human mode, nowhere in JSON mode: stdout is the result.
  const renderer: EventRenderer | undefined = opts.json
    ? undefined
    : humanRenderer(process.stderr, process.stderr)
  const controller = new AbortController()
  const stopListening = onStopSignals(() => controller.abort(), { beforeNotice: () => renderer?.pause() })
  let mcp: Awaited<ReturnType<typeof startCliMcp>> | undefined
  let service: ReturnType<typeof createCoreService> | undefined
  try {
    const provider = resolveProviderConfig(opts, process.env, store, dataDir)
    mcp = await startCliMcp({ dataDir, repo, store, mcpConfig: opts.mcpConfig })
    service = createCoreService({
      store,
      dataDir,
      host: 'cli',
      defaults: { provider: provider.provider, model: provider.model, baseUrl: provider.baseUrl },
    })
    // The task holds the whole diff; the progress view shows its first line only.
    if (renderer)
      service.subscribe((m) => {
        if (!isHostNotice(m))
          renderer.onEvent(m.type === 'user.message' ? { ...m, text: m.text.split('\n')[0] } : m)
      })
    const result = await service.review({
      mcp,
      repo,
      target,
      focus: opts.focus,
      provider,
      maxSteps: opts.maxSteps,
      signal: controller.signal,
    }).result
    renderer?.close()
    if (!result.ok) throw new UsageError(result.error)
    if (opts.json) process.stdout.write(`${JSON.stringify(toJson(result), null, 2)}\n`)
    else process.stdout.write(formatReport(result, Boolean(process.stdout.isTTY)))
    if (opts.json && result.outcome?.reason === 'error' && result.outcome.message)
      process.stderr.write(`stepwise: ${inertText(result.outcome.message)}\n`)
    return reviewExitCode(result)
  } finally {
    renderer?.close()
    stopListening()
    await service?.close()
    await mcp?.stop()
    closeSnapshotters(store)
    store.close()
  }
}

/** 0 with no high finding, 1 with one; an unfinished review exits like `stepwise edit` would. */
export function reviewExitCode(result: ReviewResult): number {
  if (result.outcome && result.outcome.reason !== 'done') return exitCodeFor(result.outcome)
  return result.findings.some((f) => f.severity === 'high') ? EXIT.failed : EXIT.ok
}

function countsOf(findings: Finding[]): ReviewJson['counts'] {
  const counts = { high: 0, medium: 0, low: 0 }
  for (const f of findings) counts[f.severity]++
  return counts
}

export function toJson(result: ReviewResult): ReviewJson {
  return {
    sessionId: result.sessionId,
    target: result.target,
    reason: result.outcome?.reason ?? 'nothing-to-review',
    findings: result.findings,
    counts: countsOf(result.findings),
    summary: result.summary,
  }
}

/** Findings grouped by file, sorted by line, then the counts and the model's summary. */
export function formatReport(raw: ReviewResult, tty: boolean): string {
  // Findings are the model's words about the project's paths: shown inert.
  const result = inertDeep(raw)
  const color = tty ? pc : pc.createColors(false)
  const paint: Record<Finding['severity'], (s: string) => string> = {
    high: (s) => color.bold(color.red(s)),
    medium: color.yellow,
    low: color.dim,
  }
  const lines: string[] = []
  const byFile = new Map<string, Finding[]>()
  for (const f of result.findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), f])
  const width = maxOf(
    result.findings.map((f) => String(f.line).length),
    1,
  )
  for (const [file, findings] of [...byFile].sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(color.bold(file))
    for (const f of [...findings].sort((a, b) => a.line - b.line)) {
      const where = String(f.line).padStart(width)
      lines.push(
        `  ${where}  ${paint[f.severity](f.severity.padEnd(6))}  ${f.category.padEnd(11)}  ${f.message}`,
      )
      if (f.suggestion) lines.push(`  ${' '.repeat(width)}  ${color.dim(`→ ${f.suggestion}`)}`)
    }
    lines.push('')
  }
  const c = countsOf(result.findings)
  const total = result.findings.length
  const tally =
    total === 0
      ? color.green('No findings.')
      : `${total} finding${total === 1 ? '' : 's'}: ${paint.high(`${c.high} high`)}, ${paint.medium(`${c.medium} medium`)}, ${paint.low(`${c.low} low`)}.`
  lines.push(
    `${tally} Reviewed ${result.target}.${result.sessionId ? color.dim(` Session ${result.sessionId}.`) : ''}`,
  )
  if (result.summary) lines.push('', result.summary)
  return `${lines.join('\n')}\n`
}

function positiveInt(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number.')
  return n
}

/** Adds `review` to the program (kept here so main.ts only registers it). */
export function addReviewCommand(program: Command): void {
  program
    .command('review')
    .description('Review code with the model and report findings (read-only: nothing is changed)')
    .argument(
      '[target]',
      'a file, a folder, git:REF (one commit), git:A..B (a range); default: the uncommitted changes',
    )
    .option('--focus <text>', 'what to look at hardest, e.g. "security" or "error handling"')
    .option('--json', 'print { sessionId, target, reason, findings, counts, summary } as one JSON document')
    .addOption(new Option('--repo <dir>', 'the project folder (default: the current directory)'))
    .addOption(new Option('--provider <provider>', 'model provider').choices(providerIds()))
    .option('--model <name>', 'model name (e.g. gpt-4.1-mini, qwen2.5-coder:7b)')
    .option(
      '--base-url <url>',
      'model server URL (default: $OPENAI_BASE_URL or $OLLAMA_HOST, else the provider default)',
    )
    .addOption(
      new Option('--max-steps <n>', 'most model turns before stopping')
        .argParser(positiveInt)
        .default(DEFAULT_MAX_STEPS),
    )
    .addOption(
      new Option(
        '--data-dir <dir>',
        'where sessions are stored (default: $STEPWISE_HOME, else the OS app-data folder)',
      ),
    )
    .addOption(mcpConfigOption())
    .action(async (target: string | undefined, opts: ReviewCliOptions) => {
      process.exitCode = await runReviewCommand(target, opts)
    })
}
