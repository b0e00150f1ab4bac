import { z } from 'zod'
import { formatDiagnostic } from '../verify/build-errors'
import { checkCommand } from '../policy/policy'
import { unconfinedCommandProblem } from '../sandboxing/sandbox-probe'
import {
  prepareBuild,
  prepareLint,
  prepareTests,
  runBuildLike,
  runInProject,
  runProblem,
  runTests,
  type PreparedRun,
} from '../verify/project'
import type { RunResult } from '../sandboxing/runner'
import { MAX_TIMEOUT_S, settingsOf } from '../sandboxing/settings'
import { formatFailure } from '../verify/verify'
import { optionalInt, optionalString } from './schema'
import type { ActionPlan, ActionTool, Outcome, ToolContext, ToolResult } from './types'
import { resolvePath } from './files'

/*
 * The exec family (docs/tools.md#the-families): run_command, run_tests, run_build, run_lint. Each
 * plans first — the exact command line and the policy's verdict on it — and the
 * loop asks or refuses per that plan before anything runs.
 */

interface CommandData {
  command: string
  timeoutS: number
  prepared?: PreparedRun
}

async function planFor(
  ctx: ToolContext,
  command: string,
  timeoutS: number,
  summary: string,
  prepared?: PreparedRun,
): Promise<Outcome<ActionPlan>> {
  const settings = settingsOf(ctx)
  const verdict = await checkCommand(command, settings, { root: ctx.root })
  const data: CommandData = { command, timeoutS, prepared }
  return {
    ok: true,
    summary,
    command: { command, cwd: ctx.root },
    verdict: verdict.verdict,
    reason: verdict.reason,
    unconfined: unconfinedCommandProblem(settings),
    data,
  }
}

function dataOf(plan: ActionPlan): CommandData {
  const data = plan.data as CommandData | undefined
  if (!data || typeof data.command !== 'string') throw new Error('exec tool executed without its plan data')
  return data
}

/** The fields every command result carries, ok or not. */
function runFields(run: RunResult): Record<string, unknown> {
  const fields: Record<string, unknown> = { exit_code: run.exitCode, duration_ms: run.durationMs }
  if (run.signal) fields.signal = run.signal
  if (run.timedOut) fields.timed_out = true
  if (run.aborted) fields.stopped_by_user = true
  if (!run.sandboxed) fields.sandboxed = false
  if (run.notes) fields.sandbox_notes = run.notes
  fields.output = run.output === '' ? '(no output)' : run.output
  return fields
}

/** A failed result that still carries everything the model needs (the output above all). */
function failure(error: string, fields: Record<string, unknown>): ToolResult {
  return { ok: false, error, ...fields } as ToolResult
}

const runCommandInput = z.object({
  command: z
    .string()
    .describe(
      'The bash command line to run in the project root, e.g. "npm test -- src/a.test.ts" or "ls -la src | head". Pipelines and && chains are fine.',
    ),
  timeout_s: optionalInt(`Stop the command after this many seconds (default 120, max ${MAX_TIMEOUT_S}).`),
})

export const runCommandTool: ActionTool<typeof runCommandInput> = {
  name: 'run_command',
  family: 'exec',
  mutating: true,
  aliases: ['bash', 'shell', 'execute_command', 'run_shell_command'],
  description:
    'Run a shell command (bash) in the project root and get its exit code and output (long output keeps its start and end). ' +
    'Read-only and project-local commands (ls, grep, git status/diff/log, npm test, …) run at once; others wait for the user; destructive ones (rm -rf, sudo, git push, …) are always refused. ' +
    'Commands run in a sandbox where one is available: only the project is writable, the network is off. Nothing is interactive: stdin is empty. ' +
    'Prefer run_tests, run_build and run_lint for the project’s own checks, and the read tools for reading files.',
  input: runCommandInput,
  async plan(input, ctx) {
    const command = input.command.trim()
    if (command === '') return { ok: false, error: 'command is empty; pass the command line to run.' }
    const timeoutS = Math.min(input.timeout_s ?? settingsOf(ctx).timeoutS, MAX_TIMEOUT_S)
    return planFor(ctx, command, timeoutS, `run \`${command}\``)
  },
  async execute(plan, ctx, io) {
    const { command, timeoutS } = dataOf(plan)
    const run = await runInProject(ctx, command, { timeoutS, onOutput: io.onOutput })
    const problem = runProblem(run, command, timeoutS)
    if (!problem) return { ok: true, ...runFields(run) }
    return failure(`${problem} The output is included; read it before trying again.`, runFields(run))
  },
}

const runTestsInput = z.object({
  path: optionalString('Only run the tests in this file or folder (project-relative). Omit for all tests.'),
  filter: optionalString('Only run tests whose name matches this (passed to the runner: -t, -run, -k, …).'),
})

export const runTestsTool: ActionTool<typeof runTestsInput> = {
  name: 'run_tests',
  family: 'exec',
  mutating: true,
  description:
    "Run the project's tests with its own test command (package.json scripts, go test, cargo test, pytest, mvn test, make test). " +
    'Returns passed and failed counts and each failure with its name, message, file and line, plus the output.',
  input: runTestsInput,
  async plan(input, ctx) {
    let rel: string | undefined
    if (input.path && input.path.trim() !== '' && input.path.trim() !== '.') {
      const resolved = resolvePath(ctx, input.path)
      if (!resolved.ok) return { ok: false, error: resolved.error }
      rel = resolved.rel
    }
    const prepared = prepareTests(ctx.root, { path: rel, filter: input.filter || undefined })
    if ('error' in prepared) return { ok: false, error: prepared.error }
    return planFor(
      ctx,
      prepared.command,
      settingsOf(ctx).buildTimeoutS,
      `run tests: \`${prepared.command}\``,
      prepared,
    )
  },
  async execute(plan, ctx, io) {
    const { command, timeoutS, prepared } = dataOf(plan)
    const outcome = await runTests(ctx, prepared!, { onOutput: io.onOutput })
    const { run, report } = outcome
    const fields: Record<string, unknown> = { command }
    if (report) {
      fields.passed = report.passed
      fields.failed = report.failed
      if (report.skipped) fields.skipped = report.skipped
      fields.failures = report.failures
    } else fields.note = 'The test output could not be read into results; read the output below.'
    if (prepared!.notes.length > 0) fields.notes = prepared!.notes
    Object.assign(fields, runFields(run))
    if (outcome.ok) return { ok: true, ...fields }
    const problem = runProblem(run, command, timeoutS)
    const failing = report?.failures.slice(0, 3).map(formatFailure).join('; ')
    const error =
      run.timedOut || run.aborted || run.spawnError
        ? problem!
        : report && report.failed > 0
          ? `${report.failed} test${report.failed === 1 ? '' : 's'} failed${failing ? `: ${failing}` : '.'}`
          : `${problem ?? 'The tests failed.'} See the output.`
    return failure(error, fields)
  },
}

export const runBuildTool: ActionTool<z.ZodObject<Record<string, never>>> = {
  name: 'run_build',
  family: 'exec',
  mutating: true,
  description:
    'Build (or type-check) the project with its own command (npm run build / typecheck, tsc --noEmit, go build, cargo build, mvn compile, make build). Returns the compiler errors with file and line, plus the output.',
  input: z.object({}),
  async plan(_input, ctx) {
    const prepared = prepareBuild(ctx.root)
    if ('error' in prepared) return { ok: false, error: prepared.error }
    return planFor(
      ctx,
      prepared.command,
      settingsOf(ctx).buildTimeoutS,
      `build: \`${prepared.command}\``,
      prepared,
    )
  },
  execute: (plan, ctx, io) => executeBuildLike(plan, ctx, io.onOutput, 'errors'),
}

const runLintInput = z.object({
  path: optionalString('Only lint this file or folder (project-relative), where the linter allows it.'),
})

export const runLintTool: ActionTool<typeof runLintInput> = {
  name: 'run_lint',
  family: 'exec',
  mutating: true,
  description:
    'Lint the project with its own command (npm run lint, go vet, cargo clippy, ruff, make lint). Returns the problems with file and line, plus the output.',
  input: runLintInput,
  async plan(input, ctx) {
    let rel: string | undefined
    if (input.path && input.path.trim() !== '' && input.path.trim() !== '.') {
      const resolved = resolvePath(ctx, input.path)
      if (!resolved.ok) return { ok: false, error: resolved.error }
      rel = resolved.rel
    }
    const prepared = prepareLint(ctx.root, rel)
    if ('error' in prepared) return { ok: false, error: prepared.error }
    return planFor(
      ctx,
      prepared.command,
      settingsOf(ctx).buildTimeoutS,
      `lint: \`${prepared.command}\``,
      prepared,
    )
  },
  execute: (plan, ctx, io) => executeBuildLike(plan, ctx, io.onOutput, 'problems'),
}

async function executeBuildLike(
  plan: ActionPlan,
  ctx: ToolContext,
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void,
  field: 'errors' | 'problems',
): Promise<ToolResult> {
  const { command, timeoutS, prepared } = dataOf(plan)
  const outcome = await runBuildLike(ctx, prepared!, { onOutput })
  const { run, diagnostics } = outcome
  const errors = diagnostics.filter((d) => d.severity === 'error')
  const shown = field === 'errors' ? errors : diagnostics
  const fields: Record<string, unknown> = { command, [field]: shown.slice(0, 50).map(formatDiagnostic) }
  if (shown.length > 50) fields.truncated = `[TRUNCATED: first 50 items] of ${shown.length}`
  if (field === 'errors' && diagnostics.length > errors.length)
    fields.warnings = diagnostics.length - errors.length
  if (prepared!.notes.length > 0) fields.notes = prepared!.notes
  Object.assign(fields, runFields(run))
  if (outcome.ok) return { ok: true, ...fields }
  const problem = runProblem(run, command, timeoutS) ?? `\`${command}\` failed.`
  const count =
    errors.length > 0
      ? ` ${errors.length} error${errors.length === 1 ? '' : 's'}; the first: ${formatDiagnostic(errors[0])}`
      : ' See the output.'
  return failure(`${problem}${run.timedOut || run.aborted ? '' : count}`, fields)
}

/** The exec family, for the registry (the lead adds them to allTools). */
export const execTools = [runCommandTool, runTestsTool, runBuildTool, runLintTool] as const
