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
import type { ActionPlan, ActionTool, Outcome, ToolContext, ToolFailure, ToolResult } from './types'
import { refused, resolvePath } from './files'
import type { TestFailure } from '../verify/failures'

/*
 * The exec family (docs/tools.md#the-families): run_command, run_tests, run_build, run_lint. Each
 * plans first — the exact command line and the policy's verdict on it — and the
 * loop asks or refuses per that plan before anything runs.
 */

/** What `execute` needs of a plan: the command line and its time limit. */
interface CommandData {
  command: string
  timeoutS: number
}

/** A project's own check (tests, build, lint): its command as prepared from the project. */
interface PreparedData extends CommandData {
  prepared: PreparedRun
}

async function planFor<D extends CommandData>(
  ctx: ToolContext,
  data: D,
  summary: string,
): Promise<Outcome<ActionPlan<D>>> {
  const settings = settingsOf(ctx)
  const verdict = await checkCommand(data.command, settings, { root: ctx.root })
  return {
    ok: true,
    summary,
    command: { command: data.command, cwd: ctx.root },
    verdict: verdict.verdict,
    reason: verdict.reason,
    unconfined: unconfinedCommandProblem(settings),
    data,
  }
}

/** The fields every command result carries, ok or not (the output above all). */
type RunFields = {
  exit_code: number | null
  duration_ms: number
  signal?: NodeJS.Signals
  timed_out?: true
  stopped_by_user?: true
  sandboxed?: false
  sandbox_notes?: string[]
  output: string
}

/** A command's result: on failure too it carries everything the model needs, its output above all. */
type CommandResult<T extends object = object> = ToolResult<T & RunFields, T & RunFields>

function runFields(run: RunResult): RunFields {
  return {
    exit_code: run.exitCode,
    duration_ms: run.durationMs,
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.timedOut ? { timed_out: true as const } : {}),
    ...(run.aborted ? { stopped_by_user: true as const } : {}),
    ...(!run.sandboxed ? { sandboxed: false as const } : {}),
    ...(run.notes ? { sandbox_notes: run.notes } : {}),
    output: run.output === '' ? '(no output)' : run.output,
  }
}

/** A failed result that still carries everything the model needs (the output above all). */
function failure<F extends object>(error: string, fields: F): ToolFailure<F> {
  return { ok: false, error, ...fields }
}

/** The plan of a project's own check, or why the project has none (`label`: "build", "lint", …). */
async function planPrepared(
  ctx: ToolContext,
  prepared: PreparedRun | { error: string },
  label: string,
): Promise<Outcome<ActionPlan<PreparedData>>> {
  if (refused(prepared)) return { ok: false, error: prepared.error }
  const data = { command: prepared.command, timeoutS: settingsOf(ctx).buildTimeoutS, prepared }
  return planFor(ctx, data, `${label}: \`${prepared.command}\``)
}

/** What a test run's result carries besides the command's own fields. */
type TestFields = {
  command: string
  passed?: number
  failed?: number
  skipped?: number
  failures?: TestFailure[]
  /** Said when the runner's output could not be read into results. */
  note?: string
  notes?: string[]
}

const runCommandInput = z.object({
  command: z
    .string()
    .describe(
      'The bash command line to run in the project root, e.g. "npm test -- src/a.test.ts" or "ls -la src | head". Pipelines and && chains are fine.',
    ),
  timeout_s: optionalInt(`Stop the command after this many seconds (default 120, max ${MAX_TIMEOUT_S}).`),
})

export const runCommandTool: ActionTool<typeof runCommandInput, CommandData> = {
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
    return planFor(ctx, { command, timeoutS }, `run \`${command}\``)
  },
  async execute(plan, ctx, io): Promise<CommandResult> {
    const { command, timeoutS } = plan.data
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

export const runTestsTool: ActionTool<typeof runTestsInput, PreparedData> = {
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
    return planPrepared(
      ctx,
      prepareTests(ctx.root, { path: rel, filter: input.filter || undefined }),
      'run tests',
    )
  },
  async execute(plan, ctx, io): Promise<CommandResult<TestFields>> {
    const { command, timeoutS, prepared } = plan.data
    const outcome = await runTests(ctx, prepared, { onOutput: io.onOutput })
    const { run, report } = outcome
    const fields: TestFields & RunFields = {
      command,
      ...(report
        ? {
            passed: report.passed,
            failed: report.failed,
            ...(report.skipped ? { skipped: report.skipped } : {}),
            failures: report.failures,
          }
        : { note: 'The test output could not be read into results; read the output below.' }),
      ...(prepared.notes.length > 0 ? { notes: prepared.notes } : {}),
      ...runFields(run),
    }
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

export const runBuildTool: ActionTool<z.ZodObject<Record<string, never>>, PreparedData> = {
  name: 'run_build',
  family: 'exec',
  mutating: true,
  description:
    'Build (or type-check) the project with its own command (npm run build / typecheck, tsc --noEmit, go build, cargo build, mvn compile, make build). Returns the compiler errors with file and line, plus the output.',
  input: z.object({}),
  plan: (_input, ctx) => planPrepared(ctx, prepareBuild(ctx.root), 'build'),
  execute: (plan, ctx, io) => executeBuildLike(plan, ctx, io.onOutput, 'errors'),
}

const runLintInput = z.object({
  path: optionalString('Only lint this file or folder (project-relative), where the linter allows it.'),
})

export const runLintTool: ActionTool<typeof runLintInput, PreparedData> = {
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
    return planPrepared(ctx, prepareLint(ctx.root, rel), 'lint')
  },
  execute: (plan, ctx, io) => executeBuildLike(plan, ctx, io.onOutput, 'problems'),
}

/** What a build or lint result carries besides the command's own fields. */
type BuildFields = {
  command: string
  /** A build's errors (warnings are counted apart). */
  errors?: string[]
  /** A lint's problems, every severity. */
  problems?: string[]
  truncated?: string
  warnings?: number
  notes?: string[]
}

async function executeBuildLike(
  plan: ActionPlan<PreparedData>,
  ctx: ToolContext,
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void,
  field: 'errors' | 'problems',
): Promise<CommandResult<BuildFields>> {
  const { command, timeoutS, prepared } = plan.data
  const outcome = await runBuildLike(ctx, prepared, { onOutput })
  const { run, diagnostics } = outcome
  const errors = diagnostics.filter((d) => d.severity === 'error')
  const shown = field === 'errors' ? errors : diagnostics
  const listed = shown.slice(0, 50).map(formatDiagnostic)
  const fields: BuildFields & RunFields = {
    command,
    ...(field === 'errors' ? { errors: listed } : { problems: listed }),
    ...(shown.length > 50 ? { truncated: `[TRUNCATED: first 50 items] of ${shown.length}` } : {}),
    ...(field === 'errors' && diagnostics.length > errors.length
      ? { warnings: diagnostics.length - errors.length }
      : {}),
    ...(prepared.notes.length > 0 ? { notes: prepared.notes } : {}),
    ...runFields(run),
  }
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
