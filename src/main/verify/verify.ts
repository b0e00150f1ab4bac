import { formatDiagnostic, type Diagnostic } from './build-errors'
import type { TestFailure, TestReport } from './failures'
import { checkCommand } from '../policy/policy'
import { unconfinedCommandProblem } from '../sandboxing/sandbox-probe'
import { settingsOf } from '../sandboxing/settings'
import {
  isPrepared,
  prepareBuild,
  prepareTests,
  runBuildLike,
  runProblem,
  runTests,
  type PreparedRun,
  type ProjectContext,
} from './project'
import { pushAll } from '../../shared/arrays'

/*
 * The repair loop's check (issue 6, --until-green): build, then tests, with the
 * project's own commands; one line per failure for the model. The user turned
 * the loop on, so detected commands run whether or not they are on the
 * allowlist — but never one on the deny list.
 */

export interface VerifyStep {
  command: string
  source: string
  ok: boolean
  exitCode: number | null
  timedOut: boolean
  /** Head and tail of the output. */
  output: string
}

export interface VerifyResult {
  passed: boolean
  /** One line per failure: "src/a.test.ts:12 adds numbers: expected 3, got 4", "build: src/x.ts:4:1: error TS2304: …". */
  failures: string[]
  build?: VerifyStep & { diagnostics: Diagnostic[] }
  tests?: VerifyStep & { report: TestReport | null }
  /** Set when there was nothing to run (no build and no test command), or a step was skipped. */
  note?: string
}

export interface VerifyOptions {
  signal?: AbortSignal
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void
}

/** "src/a.test.ts:12 adds numbers: expected 3, got 4". */
export function formatFailure(f: TestFailure): string {
  const where = f.file ? `${f.file}${f.line ? `:${f.line}` : ''} ` : ''
  const message = f.message.split('\n').find((l) => l.trim() !== '') ?? ''
  return `${where}${f.name}${message ? `: ${message.trim()}` : ''}`
}

/**
 * When no failure could be parsed out of a run, its last lines are what the model
 * needs to see to repair it: they travel inside the failure line.
 */
export function outputTail(output: string, maxLines = 20, maxChars = 2000): string {
  const lines = output.trimEnd().split('\n')
  let tail = lines.slice(-maxLines).join('\n')
  if (tail.length > maxChars) tail = tail.slice(tail.length - maxChars)
  return tail.trim() ? `; last lines of its output:\n${tail}` : ' (it printed nothing)'
}

export async function verifyProject(ctx: ProjectContext, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const failures: string[] = []
  const result: VerifyResult = { passed: false, failures }
  const build = prepareBuild(ctx.root)
  const tests = prepareTests(ctx.root)
  if (!isPrepared(build) && !isPrepared(tests)) {
    return { passed: true, failures, note: 'No build or test command was found, so nothing was verified.' }
  }
  const timeoutS = settingsOf(ctx).buildTimeoutS

  if (isPrepared(build)) {
    const refused = await refusal(build, ctx)
    if (refused) return { ...result, failures: [`build: ${refused}`] }
    const outcome = await runBuildLike(ctx, build, opts)
    result.build = { ...step(build, outcome.run, outcome.ok), diagnostics: outcome.diagnostics }
    if (!outcome.ok) {
      const errors = outcome.diagnostics.filter((d) => d.severity === 'error')
      pushAll(
        failures,
        errors.slice(0, 30).map((d) => `build: ${formatDiagnostic(d)}`),
      )
      if (errors.length > 30) failures.push(`build: … and ${errors.length - 30} more errors`)
      if (errors.length === 0)
        failures.push(
          `build: ${runProblem(outcome.run, build.command, timeoutS) ?? `\`${build.command}\` failed`}${outputTail(outcome.run.output)}`,
        )
      return { ...result, note: 'The tests were not run because the build failed.' }
    }
  }

  if (isPrepared(tests)) {
    const refused = await refusal(tests, ctx)
    if (refused) return { ...result, failures: [`tests: ${refused}`] }
    const outcome = await runTests(ctx, tests, opts)
    result.tests = { ...step(tests, outcome.run, outcome.ok), report: outcome.report }
    if (!outcome.ok) {
      const listed = outcome.report?.failures ?? []
      pushAll(failures, listed.slice(0, 30).map(formatFailure))
      if (listed.length > 30) failures.push(`… and ${listed.length - 30} more failing tests`)
      if (listed.length === 0 || outcome.run.timedOut)
        failures.push(
          `tests: ${runProblem(outcome.run, tests.command, timeoutS) ?? `\`${tests.command}\` failed`}${outputTail(outcome.run.output)}`,
        )
    }
  }
  return { ...result, passed: failures.length === 0 }
}

async function refusal(prepared: PreparedRun, ctx: ProjectContext): Promise<string | null> {
  const verdict = await checkCommand(prepared.command, settingsOf(ctx), { root: ctx.root })
  if (verdict.verdict === 'deny') return `not run: ${verdict.reason}`
  // Nobody approves the loop's runs one by one: without the sandbox they need the user's setting.
  const unconfined = unconfinedCommandProblem(settingsOf(ctx))
  return unconfined ? `not run: ${unconfined}` : null
}

function step(
  prepared: PreparedRun,
  run: { exitCode: number | null; timedOut: boolean; output: string },
  ok: boolean,
): VerifyStep {
  return {
    command: prepared.command,
    source: prepared.source,
    ok,
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    output: run.output,
  }
}
