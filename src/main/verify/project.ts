import fs from 'node:fs'
import path from 'node:path'
import { parseDiagnostics, type Diagnostic } from './build-errors'
import { LOOKED_FOR, detectProjectCommands, narrowTests, shQuote, type RunnerKind } from './detect'
import { parseJsonReport, parseTestOutput, type TestReport } from './failures'
import { runCommand, type RunResult } from '../sandboxing/runner'
import { MAX_TIMEOUT_S, settingsOf, type CommandSettings } from '../sandboxing/settings'
import { pushAll } from '../../shared/arrays'

/*
 * The project's own commands, prepared (detected, narrowed, given a JSON
 * reporter where the runner has one) and run, with their output read into
 * results. Shared by the exec tools and verifyProject.
 */

export interface ProjectContext {
  /** The project root, already realpath'd. */
  root: string
  commands?: CommandSettings
  signal: AbortSignal
}

/** Runs a command line in the project root: sandboxed per the settings, scrubbed env, capped output. */
export function runInProject(
  ctx: ProjectContext,
  command: string,
  opts: {
    timeoutS: number
    onOutput?: (stream: 'stdout' | 'stderr', text: string) => void
    signal?: AbortSignal
  },
): Promise<RunResult> {
  const settings = settingsOf(ctx)
  return runCommand({
    command,
    cwd: ctx.root,
    timeoutMs: Math.min(opts.timeoutS, MAX_TIMEOUT_S) * 1000,
    signal: opts.signal ?? ctx.signal,
    onOutput: opts.onOutput,
    sandbox:
      settings.sandbox === 'auto'
        ? { network: settings.network, readablePaths: settings.readablePaths }
        : null,
    envAllow: settings.env,
  })
}

export interface PreparedRun {
  purpose: 'tests' | 'build' | 'lint'
  command: string
  runner: RunnerKind
  /** Where the command came from (`package.json script "test" (vitest run)`). */
  source: string
  /** Root-relative file the runner writes its JSON report to. */
  reportFile?: string
  /** What could not be honoured (a path the runner cannot take, …). */
  notes: string[]
}

let reportCounter = 0

/** True when a command was found (the other answer says why none was). */
export function isPrepared(run: PreparedRun | { error: string }): run is PreparedRun {
  return !Object.hasOwn(run, 'error')
}

export function prepareTests(
  root: string,
  opts: { path?: string; filter?: string } = {},
): PreparedRun | { error: string } {
  const test = detectProjectCommands(root).test
  if (!test)
    return {
      error: `No test command found. Looked for ${LOOKED_FOR}. If you know how this project runs its tests, use run_command.`,
    }
  const notes: string[] = []
  let command: string
  if ((test.kind === 'vitest' || test.kind === 'jest' || test.kind === 'node-test') && !test.appendable) {
    if (opts.path || opts.filter)
      notes.push(
        `${test.source} runs more than the test runner, so path/filter could not be passed; ran all tests`,
      )
    command = test.command
  } else {
    const narrowed = narrowTests(test, opts)
    command = narrowed.command
    pushAll(notes, narrowed.notes)
  }
  let reportFile: string | undefined
  const hasJsonReporter = test.kind === 'vitest' || test.kind === 'jest'
  if (test.appendable && hasJsonReporter && fs.existsSync(path.join(root, 'node_modules'))) {
    // In the project root: the sandbox's /tmp is private, and node_modules may be a read-only link.
    reportFile = `.stepwise-test-report-${process.pid}-${++reportCounter}.json`
    const flags =
      test.kind === 'vitest'
        ? `--reporter=default --reporter=json --outputFile.json=${reportFile}`
        : `--json --outputFile=${reportFile}`
    command += command.startsWith('npm ') && !command.includes(' -- ') ? ` -- ${flags}` : ` ${flags}`
  }
  return { purpose: 'tests', command, runner: test.kind, source: test.source, reportFile, notes }
}

export function prepareBuild(root: string): PreparedRun | { error: string } {
  const build = detectProjectCommands(root).build
  if (!build)
    return {
      error: `No build command found. Looked for ${LOOKED_FOR}. Use run_command if you know how this project builds.`,
    }
  return { purpose: 'build', command: build.command, runner: build.kind, source: build.source, notes: [] }
}

export function prepareLint(root: string, lintPath?: string): PreparedRun | { error: string } {
  const lint = detectProjectCommands(root).lint
  if (!lint)
    return {
      error: `No lint command found. Looked for ${LOOKED_FOR}. Use run_command if you know how this project lints.`,
    }
  const notes: string[] = []
  let command = lint.command
  if (lintPath) {
    if (lint.kind === 'go') command = `go vet ./${lintPath.replace(/^\.\//, '').replace(/\/$/, '')}/...`
    else if (lint.appendable || lint.command === 'ruff check')
      command += `${command.startsWith('npm ') ? ' --' : ''} ${shQuote(lintPath)}`
    else notes.push(`${lint.source} cannot be narrowed to a path; linted the whole project`)
  }
  return { purpose: 'lint', command, runner: lint.kind, source: lint.source, notes }
}

export interface TestOutcome {
  ok: boolean
  run: RunResult
  report: TestReport | null
}

export async function runTests(
  ctx: ProjectContext,
  prepared: PreparedRun,
  opts: { onOutput?: (stream: 'stdout' | 'stderr', text: string) => void; signal?: AbortSignal } = {},
): Promise<TestOutcome> {
  const reportPath = prepared.reportFile ? path.join(ctx.root, prepared.reportFile) : undefined
  if (reportPath) fs.mkdirSync(path.dirname(reportPath), { recursive: true })
  try {
    const run = await runInProject(ctx, prepared.command, {
      timeoutS: settingsOf(ctx).buildTimeoutS,
      ...opts,
    })
    let report: TestReport | null = null
    if (reportPath) report = readReport(reportPath, ctx.root)
    report ??= parseTestOutput(prepared.runner, run.output, ctx.root)
    const ok = run.exitCode === 0 && !run.timedOut && (report === null || report.failed === 0)
    return { ok, run, report }
  } finally {
    if (reportPath) fs.rmSync(reportPath, { force: true })
  }
}

/** Reports past this size are not parsed (the runner's text output is read instead). */
const MAX_REPORT_BYTES = 64 * 1024 * 1024

/**
 * The JSON report the test command wrote — as a regular file only. The command ran in the
 * sandbox, but this read is the host's: a symbolic link left in its place would read a host file
 * the sandbox hides (and show it as failures), a FIFO would block and a device never end.
 */
export function readReport(file: string, root: string): TestReport | null {
  const flags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)
  let fd: number
  try {
    fd = fs.openSync(file, flags)
  } catch {
    return null // absent, or a link
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile() || st.nlink > 1 || st.size > MAX_REPORT_BYTES) return null
    return parseJsonReport(fs.readFileSync(fd, 'utf8'), root)
  } finally {
    fs.closeSync(fd)
  }
}

export interface BuildOutcome {
  ok: boolean
  run: RunResult
  diagnostics: Diagnostic[]
}

export async function runBuildLike(
  ctx: ProjectContext,
  prepared: PreparedRun,
  opts: { onOutput?: (stream: 'stdout' | 'stderr', text: string) => void; signal?: AbortSignal } = {},
): Promise<BuildOutcome> {
  const run = await runInProject(ctx, prepared.command, { timeoutS: settingsOf(ctx).buildTimeoutS, ...opts })
  return { ok: run.exitCode === 0 && !run.timedOut, run, diagnostics: parseDiagnostics(run.output, ctx.root) }
}

/** What happened to a run that did not succeed, for the model: what and what to try. */
export function runProblem(run: RunResult, command: string, timeoutS: number): string | null {
  if (run.spawnError) return `\`${command}\` could not be started: ${run.spawnError.replace(/\.$/, '')}.`
  if (run.aborted) return `\`${command}\` was stopped by the user before it finished.`
  if (run.timedOut)
    return `\`${command}\` did not finish within ${timeoutS} s and was stopped (its whole process group was killed). If it waits for input or watches for changes, run it in a one-shot mode (e.g. \`vitest run\`); if it is just slow, pass a larger timeout_s (max ${MAX_TIMEOUT_S}).`
  if (run.signal) return `\`${command}\` was killed by ${run.signal}.`
  if (run.exitCode !== 0) return `\`${command}\` exited with code ${run.exitCode}.`
  return null
}
