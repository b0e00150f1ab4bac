import path from 'node:path'
import { Command, InvalidArgumentError, Option } from 'commander'
import pc from 'picocolors'
import {
  APPROVAL_POLICIES,
  isHostNotice,
  type ApprovalPolicy,
  type ProviderId,
} from '../../../shared/protocol'
import { InvalidStepError } from '../../agent/resume'
import { defaultDataDir } from '../../config/paths'
import type { ProviderConfig } from '../../providers/types'
import { commandSettings } from '../../service/settings'
import { checkForkAt, ForkError, forkContinuation, forkSession, type ForkResult } from '../../timetravel/fork'
import { createCoreService } from '../../service/service'
import { closeSnapshotters } from '../../session/start'
import { WorktreeError } from '../../timetravel/fork-worktree'
import { replaySession, type ReplayFrame } from '../../timetravel/replay'
import { approverFor, exitCodeFor, resolveProviderConfig } from './edit'
import { EXIT, UsageError } from './exit-codes'
import { formatDuration, humanRenderer, jsonRenderer, summarizeArgs, type EventRenderer } from './render'
import { confirm } from './confirm'
import { onStopSignals } from './signals'
import { dataDirOption, openCliStore } from './session-store'
import { inertDeep, inertText } from '../../../shared/terminalText'
import { seqOfStep, stepOfEvent, stepsOf, StepNumberError } from '../../../shared/steps'
import { envBaseUrl } from '../../config/provider-env'
import { providerIds } from '../../../shared/providers'

/** `stepwise sessions fork` and `stepwise sessions replay` (issue 4). */

interface ForkCliOptions {
  at: number
  provider?: ProviderId
  model?: string
  baseUrl?: string
  approve: ApprovalPolicy
  maxSteps?: number
  /** A folder, or true: a new folder beside the repository, picked by the core. */
  worktree?: string | true
  only?: 'files' | 'conversation'
  yes?: boolean
  json?: boolean
  dataDir?: string
}

function wholeNumber(value: string): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a step number (a whole number, as sessions show prints it).')
  return n
}

/** The event seq step `n` of the session means (shared/steps.ts), or a usage error with the range. */
export function seqOfStepArg(events: Parameters<typeof seqOfStep>[0], n: number): number {
  try {
    return seqOfStep(events, n)
  } catch (err) {
    if (err instanceof StepNumberError)
      throw new UsageError(`${err.message} See them with: stepwise sessions show`)
    throw err
  }
}

export function addForkReplayCommands(sessions: Command): void {
  sessions
    .command('fork')
    .description(
      'Fork a session at a step: its history and files up to there; with --model, re-run from there',
    )
    .argument('<id>', 'session id (a unique prefix is enough)')
    .addOption(
      new Option(
        '--at <step>',
        'the step number, as sessions show and sessions replay print it (0: the start)',
      )
        .argParser(wholeNumber)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--only <part>',
        'fork the conversation alone (files stay as they are) or the files alone (a new chat)',
      ).choices(['conversation', 'files']),
    )
    .addOption(new Option('--provider <provider>', 'continue on this provider').choices(providerIds()))
    .option('--model <name>', 'continue from the step on this model')
    .option('--base-url <url>', 'model server URL for the continued run')
    .addOption(
      new Option('--approve <policy>', 'approval policy of the continued run')
        .choices(APPROVAL_POLICIES)
        .default('ask'),
    )
    .addOption(
      new Option('--max-steps <n>', 'most model replies of the continued run').argParser(wholeNumber),
    )
    .option(
      '--worktree [dir]',
      'put the files in a new git worktree (at DIR, else a folder beside the repository) instead of the project folder',
    )
    .option('--yes', 'fork in place without asking (the present is checkpointed first)')
    .option('--json', 'print the fork (and the continued run’s events) as JSON')
    .addOption(dataDirOption())
    .action(async (id: string, opts: ForkCliOptions) => {
      process.exitCode = await runFork(id, opts)
    })
  sessions
    .command('replay')
    .description('Print a session step by step, as it happened, with the diff of each checkpoint')
    .argument('<id>', 'session id (a unique prefix is enough)')
    .option('--json', 'print each step as one JSON line')
    .addOption(dataDirOption())
    .action((id: string, opts: { json?: boolean; dataDir?: string }) => {
      process.exitCode = runReplay(id, opts)
    })
}

export async function runFork(id: string, opts: ForkCliOptions): Promise<number> {
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const store = openCliStore(dataDir)
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  try {
    const parent = store.findSession(id)
    if (!parent)
      throw new UsageError(
        `no session matches "${id}" in ${store.path}. List them with: stepwise sessions list`,
      )
    const events = store.listEvents(parent.id)
    const atSeq = seqOfStepArg(events, opts.at)
    const what = opts.only ?? 'both'
    if (opts.only === 'conversation' && opts.worktree)
      throw new UsageError('--only conversation keeps the files where they are: drop --worktree.')
    try {
      checkForkAt(events, atSeq, what)
    } catch (err) {
      if (err instanceof InvalidStepError) throw new UsageError(err.message)
      throw err
    }
    const rerun = opts.model !== undefined || opts.provider !== undefined
    const started = events[0]?.type === 'session.started' ? events[0] : undefined
    const provider = rerun
      ? resolveProviderConfig(
          {
            provider: opts.provider ?? (parent.provider as ProviderId),
            model: opts.model,
            // The parent's server when staying on its provider and nothing else was said.
            baseUrl:
              opts.baseUrl ??
              ((opts.provider ?? parent.provider) === started?.provider && !envBaseUrl(started.provider)
                ? started.baseUrl
                : undefined),
          },
          process.env,
          store,
          dataDir,
        )
      : undefined
    if (
      !opts.worktree &&
      !opts.yes &&
      what !== 'conversation' &&
      !(await confirmInPlace(parent.repo, opts, interactive))
    ) {
      process.stderr.write('Nothing was changed.\n')
      return EXIT.failed
    }
    const renderer = opts.json ? jsonRenderer(process.stdout) : humanRenderer(process.stdout, process.stderr)
    let fork: ForkResult
    try {
      fork = await forkSession(store, {
        sessionId: parent.id,
        atSeq,
        what,
        files: opts.worktree
          ? { kind: 'worktree', dir: opts.worktree === true ? undefined : path.resolve(opts.worktree) }
          : { kind: 'in-place' },
        model: provider && { provider: provider.provider, model: provider.model, baseUrl: provider.baseUrl },
        policy: rerun ? opts.approve : undefined,
        maxSteps: opts.maxSteps,
        emit: opts.json && rerun ? (e) => renderer.onEvent(e) : undefined,
      })
    } catch (err) {
      if (err instanceof WorktreeError) throw new UsageError(err.message)
      if (err instanceof ForkError) {
        process.stderr.write(`stepwise: ${inertText(err.message)}\n`)
        return EXIT.failed
      }
      throw err
    }
    if (opts.json && !rerun) process.stdout.write(`${JSON.stringify(fork, null, 2)}\n`)
    if (!opts.json) process.stdout.write(describeFork(fork))
    if (!provider) return EXIT.ok

    return await rerunFork({ store, dataDir, renderer, interactive }, fork, provider, opts)
  } finally {
    store.close()
  }
}

/**
 * Asks before a fork puts the project's files back in place; without a terminal to ask on,
 * says which flag confirms it or forks elsewhere.
 */
async function confirmInPlace(repo: string, opts: ForkCliOptions, interactive: boolean): Promise<boolean> {
  const question = `Put the files of ${repo} back as they were at step ${opts.at}? The present is checkpointed first (an undo of the fork brings it back). [y/N] `
  if (!interactive)
    throw new UsageError(
      `forking in place rewrites the files of ${repo}: pass --yes to confirm, or --worktree DIR to fork into a new git worktree.`,
    )
  return confirm(question)
}

/** Where a fork's re-run writes and asks: the open store and data folder, the renderer, a terminal or not. */
interface RerunContext {
  store: ReturnType<typeof openCliStore>
  dataDir: string
  renderer: EventRenderer
  interactive: boolean
}

/** The fork's re-run on the chosen model: its next turn, through the service the app drives. */
async function rerunFork(
  { store, dataDir, renderer, interactive }: RerunContext,
  fork: ForkResult,
  provider: ProviderConfig,
  opts: ForkCliOptions,
): Promise<number> {
  const approver = approverFor(opts.approve, interactive, renderer)
  const controller = new AbortController()
  const stopListening = onStopSignals(() => controller.abort(), { beforeNotice: () => renderer.pause() })
  // The re-run is the fork's next turn, through the service the app drives (service/sessions.ts).
  const service = createCoreService({
    store,
    dataDir,
    host: 'cli',
    defaults: { provider: provider.provider, model: provider.model, baseUrl: provider.baseUrl },
  })
  service.subscribe((m) => {
    if (!isHostNotice(m)) renderer.onEvent(m)
  })
  try {
    const message = forkContinuation(store, fork)
    const { outcome } = await service.sessions.beginTurn(fork.sessionId, message, {
      kind: message === undefined ? 'continue' : 'message',
      approver,
      audience: 'cli',
      signal: controller.signal,
      host: {
        maxSteps: opts.maxSteps,
        commands: commandSettings(store),
      },
    })
    const ended = await outcome
    if (!ended) return EXIT.failed
    if (opts.json && ended.reason === 'error' && ended.message)
      process.stderr.write(`stepwise: ${inertText(ended.message)}\n`)
    return exitCodeFor(ended)
  } finally {
    renderer.close()
    stopListening()
    await service.close()
    closeSnapshotters(store)
  }
}

export function describeFork(fork: ForkResult): string {
  const at = fork.parent.step
  const where =
    fork.what === 'conversation'
      ? `files: left as they are in ${fork.repo}`
      : fork.files === 'worktree'
        ? `files: as at step ${at}, in the git worktree ${fork.repo}`
        : `files: put back to step ${at} in ${fork.repo}; the present was saved as checkpoint ${fork.savedSnapshotId} (undo with: stepwise sessions undo ${fork.sessionId})`
  const history = fork.what === 'files' ? '  conversation: none (a new chat on those files)' : undefined
  return [
    `Forked ${fork.parent.sessionId} at step ${at} into ${fork.sessionId} (“${fork.title}”)`,
    `  ${where}`,
    ...(history ? [history] : []),
    `  show it with: stepwise sessions show ${fork.sessionId}`,
    '',
  ].join('\n')
}

export function runReplay(id: string, opts: { json?: boolean; dataDir?: string }): number {
  const store = openCliStore(opts.dataDir)
  try {
    const session = store.findSession(id)
    if (!session)
      throw new UsageError(
        `no session matches "${id}" in ${store.path}. List them with: stepwise sessions list`,
      )
    const color = process.stdout.isTTY ? pc : pc.createColors(false)
    const steps = stepsOf(store.listEvents(session.id))
    for (const frame of replaySession(store, session.id)) {
      // The step the event belongs to (shared/steps.ts): the number fork --at and rewind --to take.
      const step = stepOfEvent(steps, frame.event)
      if (opts.json) {
        const { view: _view, ...rest } = frame
        process.stdout.write(`${JSON.stringify({ step, ...rest })}\n`)
        continue
      }
      const line = describeFrame({ ...frame, event: inertDeep(frame.event) })
      if (line === undefined) continue
      process.stdout.write(`${color.dim(`+${clock(frame.atMs)} [${String(step).padStart(4)}]`)} ${line}\n`)
      if (frame.diff) process.stdout.write(`${inertText(frame.diff).replace(/^/gm, '      ').trimEnd()}\n`)
    }
    return EXIT.ok
  } finally {
    store.close()
  }
}

/** A fork point: its step number, or for a fork recorded before steps were numbered, its event seq. */
export function forkPoint(step: number | undefined, seq: number): string {
  return step === undefined ? `event ${seq}` : `step ${step}`
}

function clock(ms: number): string {
  const s = Math.max(0, ms) / 1000
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${(s % 60).toFixed(1).padStart(4, '0')}`
}

/** One line per event; streamed text and tool output are left to the lines they end in. */
export function describeFrame({ event: e }: ReplayFrame): string | undefined {
  switch (e.type) {
    case 'session.started':
      return `session started on ${e.provider}/${e.model} in ${e.repo} (${e.approvalPolicy})${e.parent ? `, forked from ${e.parent.sessionId} at ${forkPoint(e.parent.step, e.parent.seq)}` : ''}`
    case 'user.message':
      return `user: ${e.text.split('\n')[0]}`
    case 'assistant.delta':
    case 'tool.output':
      return undefined
    case 'assistant.message': {
      const calls = e.toolCalls.length ? ` → ${e.toolCalls.map((c) => c.name).join(', ')}` : ''
      const text = e.text.trim().split('\n')[0] ?? ''
      return `model reply ${e.step} (${formatDuration(e.durationMs)})${calls}${text ? `: ${text}` : ''}`
    }
    case 'model.retry':
      return `model retry ${e.attempt}: ${e.reason}`
    case 'tool.started':
      return `tool ${e.name} ${summarizeArgs(e.args)}`
    case 'approval.requested':
      return `approval asked for ${e.tool}`
    case 'approval.resolved':
      return `approval: ${e.decision} by ${e.by}${e.reason ? ` (${e.reason})` : ''}`
    case 'tool.finished':
      return `${e.ok ? '✓' : '✗'} ${e.name}${e.ok ? '' : ` — ${String(e.result.error)}`}`
    case 'checkpoint.created':
      return `◆ checkpoint ${e.snapshotId}: ${e.paths.join(', ') || 'no change'}`
    case 'change.proposed':
      return `change ${e.index + 1} of ${e.count} proposed: ${e.change.path}`
    case 'checkpoint.restored':
      return `↺ ${e.kind} to checkpoint ${e.snapshotId}: ${e.paths.join(', ') || 'no change'}`
    case 'session.forked':
      return `⑂ forked at ${forkPoint(e.atStep, e.atSeq)} into ${e.childSessionId}`
    case 'session.configured':
      return `switched to ${[e.provider, e.model].filter(Boolean).join(' ') || 'the same model'}${e.approvalPolicy ? `, approval ${e.approvalPolicy}` : ''}`
    case 'context.compacted':
      return `⇣ context compacted ${e.beforeTokens} → ${e.afterTokens} tokens`
    case 'review.finding':
      return `${e.finding.severity} ${e.finding.file}:${e.finding.line} ${e.finding.message}`
    case 'verify.finished':
      return `verify ${e.round}/${e.maxRounds}: ${e.passed ? 'passed' : `${e.failures.length} failing`}`
    case 'toolcall.unparsed':
      return `⚠ unreadable ${e.family} tool call${e.repair ? ', asked to repair' : ''}: ${e.problem}`
    case 'error':
      return `error: ${e.message}`
    case 'session.finished':
      return `finished: ${e.reason}${e.message ? ` — ${e.message}` : ''}`
    case 'turn.started':
      return `turn ${e.turn} (${e.kind})`
    case 'turn.finished':
      return `turn ${e.turn} ended: ${e.reason}`
    default: {
      const unreachable: never = e
      return unreachable
    }
  }
}
