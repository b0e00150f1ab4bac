import type { Command } from 'commander'
import { createCodeIndex } from '../../codeindex/code-index'
import { indexStateFile } from '../../session/code-context'
import { indexProgressLine } from './index-progress'
import type { BuildReport, IndexStatus } from '../../codeindex/api'
import { createSandbox } from '../../containment/sandbox'
import { resolveRepo } from './edit'
import { EXIT } from './exit-codes'
import { formatDuration } from './render'
import { openCliStore } from './session-store'

/**
 * `stepwise index`: the code index's size, age and errors, brought up to date
 * (only changed files are parsed) — the headless face of the app's "reindex"
 * command and status view.
 */
export function addIndexCommand(program: Command): void {
  program
    .command('index')
    .description("Update the project's code index and show its size, age and errors")
    .option('--repo <dir>', 'the project folder (default: the current directory)')
    .option('--prefix <folder>', 'index only this folder (for projects past 10,000 files)')
    .option('--json', 'print the status and the build report as JSON')
    .option(
      '--data-dir <dir>',
      'where sessions are stored (default: $STEPWISE_HOME, else the OS app-data folder)',
    )
    .action(async (opts: { repo?: string; prefix?: string; json?: boolean; dataDir?: string }) => {
      process.exitCode = await runIndex(opts)
    })
}

function describeAge(builtAt: number | undefined, now = Date.now()): string {
  if (builtAt === undefined) return 'never built'
  return now - builtAt < 5000 ? 'up to date' : `built ${formatDuration(now - builtAt)} ago`
}

export function formatIndexReport(status: IndexStatus, report: BuildReport): string {
  const languages = Object.entries(status.languages)
    .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
    .map(([lang, n]) => `${lang} ${n}`)
    .join(', ')
  const lines = [
    `${status.root}${status.prefix ? ` (only ${status.prefix}/)` : ''}`,
    `${status.files} files, ${(status.bytes / 1024 / 1024).toFixed(1)} MB · ${languages || 'no source files'}`,
    `${describeAge(status.builtAt)} · this update: ${report.parsed} parsed, ${report.unchanged} unchanged, ${report.removed} removed in ${report.seconds.toFixed(2)} s`,
  ]
  if (status.warning) lines.push(`warning: ${status.warning}`)
  for (const g of status.grammarErrors) lines.push(`grammar: ${g}`)
  if (status.filesWithParseErrors > 0) {
    lines.push(`${status.filesWithParseErrors} files with syntax errors (indexed as far as they parse):`)
    for (const p of report.parseErrors.slice(0, 10)) lines.push(`  ${p.path}: ${p.reason}`)
  }
  if (status.skippedFiles > 0) {
    lines.push(`${status.skippedFiles} files indexed by metadata only:`)
    for (const p of report.skipped.slice(0, 10)) lines.push(`  ${p.path}: ${p.reason}`)
  }
  for (const p of report.errors.slice(0, 10)) lines.push(`error: ${p.path}: ${p.reason}`)
  return `${lines.join('\n')}\n`
}

async function runIndex(opts: {
  repo?: string
  prefix?: string
  json?: boolean
  dataDir?: string
}): Promise<number> {
  const repo = resolveRepo(opts.repo)
  const store = openCliStore(opts.dataDir)
  try {
    const sandbox = await createSandbox(repo)
    // Someone waits for this build: its threads run at normal priority.
    const index = createCodeIndex(store, {
      root: sandbox.root,
      sandbox,
      prefix: opts.prefix,
      workerNice: 0,
      // The rows a session's check reads, saved for it (a folder's build keeps none).
      stateFile: opts.prefix ? undefined : indexStateFile(store, sandbox.root),
    })
    const line = indexProgressLine(process.stderr)
    const report = await index.build({ onProgress: (p) => line.update(p) }).finally(() => line.close())
    const status = index.status()
    process.stdout.write(
      opts.json ? `${JSON.stringify({ status, report }, null, 2)}\n` : formatIndexReport(status, report),
    )
    return EXIT.ok
  } finally {
    store.close()
  }
}
