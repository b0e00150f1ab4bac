import fs from 'node:fs'
import path from 'node:path'
import { InvalidArgumentError, Option } from 'commander'
import type { ApprovalPolicy, ModelOptionsSetting, ProviderId } from '../../../shared/protocol'
import { refusingApprover, type Approver } from '../../agent/approvals'
import { isMisconfiguration } from '../../agent/errors'
import type { TurnOutcome } from '../../agent/loop'
import { resolveApiKey } from '../../config/credentials'
import { chooseModel } from '../../config/defaults'
import { defaultDataDir } from '../../config/paths'
import type { ProviderConfig } from '../../providers/types'
import { onIndexProgress } from '../../session/code-context'
import { closeSnapshotters, prepareBaseline } from '../../session/start'
import type { CommandSettings } from '../../sandboxing/settings'
import { probeSandboxSoon, type SandboxStatus } from '../../sandboxing/sandbox-probe'
import { createCoreService } from '../../service/service'
import { ServiceError } from '../../service/service-error'
import type { HostTurnSettings } from '../../service/sessions'
import { isHostNotice } from '../../../shared/protocol'
import { commandSettings, flagModelOptions, storedModelOptions } from '../../service/settings'
import type { Store } from '../../store/types'
import { EXIT, UsageError } from './exit-codes'
import { startCliMcp } from './mcp-start'
import { indexProgressLine } from './index-progress'
import { humanRenderer, jsonRenderer, type EventRenderer } from './render'
import { onStopSignals } from './signals'
import { terminalApprover } from './terminal-approver'
import { inertText } from '../../../shared/terminalText'
import { openCliStore } from './session-store'
import { dailyBackup } from '../../open-data-folder'

export interface EditOptions {
  repo?: string
  provider?: ProviderId
  model?: string
  baseUrl?: string
  /** The context window (Ollama's num_ctx; a Chat server's size). */
  numCtx?: number
  temperature?: number
  /** The stream-limit flags (providers/limits.ts), as commander names them. */
  firstTokenTimeout?: number
  idleTimeout?: number
  maxOutputTokens?: number
  approve: ApprovalPolicy
  /** Most model turns. */
  maxSteps: number
  /** Most tool calls (the original limit, 50, by default). */
  maxToolCalls?: number
  untilGreen?: boolean
  maxRepairs?: number
  json?: boolean
  dataDir?: string
  /** Where the sandbox cannot run, run commands unconfined (the `allowUnsandboxed` setting, for this run). */
  allowUnsandboxed?: boolean
  /** `--mcp-config FILE` (repeatable): MCP servers beside the data folder's mcp.json. */
  mcpConfig?: string[]
  /** `--resume ID`: continue that stored chat instead of opening a new session (continue.ts). */
  resume?: string
}

/** `--num-ctx`: a window in tokens, from 512 (nothing useful fits below) to 2M. */
export function numCtxArg(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 512 || n > 2_097_152)
    throw new InvalidArgumentError('expected a window in tokens, from 512 to 2097152 (e.g. 8192).')
  return n
}

export function temperatureArg(value: string): number {
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 2)
    throw new InvalidArgumentError('expected a number from 0 to 2 (e.g. 0.2).')
  return n
}

/** The window and temperature flags, shared by `edit` and `serve`. */
export const numCtxOption = (): Option =>
  new Option(
    '--num-ctx <tokens>',
    "context window in tokens: Ollama's num_ctx (default: the model's length, up to 32768), or the window of another server",
  ).argParser(numCtxArg)
export const temperatureOption = (): Option =>
  new Option('--temperature <t>', "sampling temperature, 0 to 2 (default: the server's)").argParser(
    temperatureArg,
  )

function wholeArg(min: number, max: number, example: string): (value: string) => number {
  return (value) => {
    const n = Number(value)
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max} (e.g. ${example}).`)
    return n
  }
}

/** The model-option flags as commander names them (`--idle-timeout` → `idleTimeout`). */
export interface ModelFlags {
  numCtx?: number
  temperature?: number
  firstTokenTimeout?: number
  idleTimeout?: number
  maxOutputTokens?: number
}

/** The flags as the model options they set (the settings' names), unset ones left out. */
export function modelOptionsFromFlags(flags: ModelFlags): ModelOptionsSetting {
  const options = flagModelOptions({
    numCtx: flags.numCtx,
    temperature: flags.temperature,
    firstTokenTimeoutSec: flags.firstTokenTimeout,
    idleTimeoutSec: flags.idleTimeout,
    maxOutputTokens: flags.maxOutputTokens,
  })
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined))
}

/** The stream-limit flags (providers/limits.ts), shared by `edit`, `serve` and `sessions continue`. */
export const firstTokenTimeoutOption = (): Option =>
  new Option(
    '--first-token-timeout <seconds>',
    'how long to wait for the first token, a local model loading included (default: 300)',
  ).argParser(wholeArg(1, 86_400, '600'))
export const idleTimeoutOption = (): Option =>
  new Option(
    '--idle-timeout <seconds>',
    'how long the model may send nothing mid-answer (default: 120)',
  ).argParser(wholeArg(1, 86_400, '300'))
export const maxOutputTokensOption = (): Option =>
  new Option(
    '--max-output-tokens <n>',
    "the cap on one answer's length, sent to the server (default: 32768, sent to Ollama only)",
  ).argParser(wholeArg(16, 2_097_152, '8192'))

export function resolveRepo(repo: string | undefined): string {
  const dir = path.resolve(repo ?? process.cwd())
  let stat: fs.Stats
  try {
    stat = fs.statSync(dir)
  } catch {
    throw new UsageError(`project folder not found: ${dir}`)
  }
  if (!stat.isDirectory()) throw new UsageError(`not a folder: ${dir} (--repo takes the project folder)`)
  return fs.realpathSync(dir)
}

/** Flags, then the environment, then stored settings, then defaults (config/defaults.ts). */
export function resolveProviderConfig(
  opts: Pick<EditOptions, 'provider' | 'model' | 'baseUrl'> & ModelFlags,
  env: NodeJS.ProcessEnv,
  store: Pick<Store, 'getSetting'>,
  dataDir: string,
): ProviderConfig {
  const { provider, model, baseUrl } = chooseModel(opts, env, store)
  if (!model)
    throw new UsageError(
      `--model is required with --provider ${provider}, or set $OPENAI_MODEL (the server decides which models exist).`,
    )
  const options = storedModelOptions(store, modelOptionsFromFlags(opts))
  return { provider, model, baseUrl, apiKey: resolveApiKey(env, dataDir, provider), ...options }
}

/**
 * Who answers approvals in a terminal run: the terminal itself under `ask`, else
 * nobody (the policy decides; `ask` without a terminal refuses, and says so once).
 */
export function approverFor(policy: ApprovalPolicy, interactive: boolean, renderer: EventRenderer): Approver {
  if (policy !== 'ask') return refusingApprover
  if (interactive) {
    return terminalApprover({
      input: process.stdin,
      output: process.stderr,
      beforePrompt: () => renderer.pause(),
    })
  }
  process.stderr.write(
    'stepwise: no terminal to ask for approval: file changes will be refused. Pass --approve auto-edit (or full-auto) to let them apply.\n',
  )
  return refusingApprover
}

export function exitCodeFor(outcome: Pick<TurnOutcome, 'reason' | 'errorKind'>): number {
  switch (outcome.reason) {
    case 'done':
      return EXIT.ok
    case 'step-limit':
      return EXIT.stepLimit
    case 'interrupted':
      return EXIT.interrupted
    case 'error':
      return isMisconfiguration(outcome.errorKind) ? EXIT.model : EXIT.failed
  }
}

/** A path as a shell word: quoted unless it is plain. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`
}

/** The commands that show what a run did, exactly as they work from here (docs/cli.md). */
export function followUp(sessionId: string, dataDir: string | undefined): string {
  const at = dataDir ? ` --data-dir ${shellWord(path.resolve(dataDir))}` : ''
  return [
    'See what happened:',
    `  stepwise sessions show ${sessionId}${at}`,
    `  stepwise sessions export ${sessionId} --format diff${at}`,
    `  stepwise sessions export ${sessionId} --format raw${at}`,
    '',
  ].join('\n')
}

/**
 * `stepwise edit "task"`: a new session and its first turn, through the same service the app
 * drives (service/sessions.ts), in this process. The flags fix this run's settings (steps,
 * repair rounds, the command sandbox, MCP servers) for the session's turns here.
 */
export async function runEdit(task: string, opts: EditOptions): Promise<number> {
  if (!task.trim()) throw new UsageError('the task is empty: say what the agent should do.')
  const repo = resolveRepo(opts.repo)
  const dataDir = path.resolve(opts.dataDir ?? defaultDataDir())
  const store = openCliStore(dataDir)
  const renderer = opts.json ? jsonRenderer(process.stdout) : humanRenderer(process.stdout, process.stderr)
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  const controller = new AbortController()
  const stopListening = onStopSignals(() => controller.abort(), { beforeNotice: () => renderer.pause() })
  let mcp: Awaited<ReturnType<typeof startCliMcp>> | undefined
  let service: ReturnType<typeof createCoreService> | undefined
  let stopIndexProgress: (() => void) | undefined
  try {
    const provider = resolveProviderConfig(opts, process.env, store, dataDir)
    const approver = approverFor(opts.approve, interactive, renderer)
    // bwrap's runs go on in the background while the session opens; they are awaited before the turn.
    const sandboxProbe = probeSandboxSoon()
    // Before MCP servers start: their time then hides the baseline's stats.
    await prepareBaseline(store, repo).catch(() => undefined) // opening the session says what is wrong
    const commands = commandsFor(store, opts)
    // Started before the session: the first request must list their tools.
    mcp = await startCliMcp({ dataDir, repo, store, mcpConfig: opts.mcpConfig })
    // `/mcp__SERVER__PROMPT args`: the server's prompt is the task.
    task = await mcp.expandPrompt(task)
    stopIndexProgress = showIndexProgress()
    service = createCoreService({
      store,
      dataDir,
      host: 'cli',
      defaults: {
        provider: provider.provider,
        model: provider.model,
        baseUrl: provider.baseUrl,
        ...modelOptionsFromFlags(opts),
      },
    })
    // Every event of this process's session, as it is stored.
    service.subscribe((m) => {
      if (!isHostNotice(m)) renderer.onEvent(m)
    })
    const sessions = service.sessions
    const sessionId = await sessions.open({
      repo,
      config: {
        provider: provider.provider,
        model: provider.model,
        baseUrl: provider.baseUrl,
        policy: opts.approve,
      },
      maxSteps: opts.maxSteps,
      title: task,
      eager: true,
      host: turnSettingsFor(opts, commands, mcp),
    })
    warnIfUnconfined(await sandboxProbe, commands, opts)
    for (const notice of await sessions.prepare(sessionId))
      process.stderr.write(`stepwise: ${inertText(notice)}\n`)
    const { outcome } = await sessions.beginTurn(sessionId, task, {
      untilGreen: opts.untilGreen,
      approver,
      audience: 'cli',
      signal: controller.signal,
    })
    const ended = await outcome
    if (!opts.json) process.stdout.write(followUp(sessionId, opts.dataDir))
    if (!ended) return EXIT.failed
    // In JSON mode stdout is for events only; the reason still reaches a human on stderr.
    if (opts.json && ended.reason === 'error' && ended.message)
      process.stderr.write(`stepwise: ${inertText(ended.message)}\n`)
    return exitCodeFor(ended)
  } catch (err) {
    if (err instanceof ServiceError) throw new UsageError(err.message)
    throw err
  } finally {
    stopIndexProgress?.()
    renderer.close()
    stopListening()
    await service?.close()
    await mcp?.stop()
    // Nothing this run opened may outlive it: the snapshotter's watches close before the database.
    closeSnapshotters(store)
    await dailyBackup(store, dataDir)
    store.close()
  }
}

/** The code index builds in the background; a terminal sees its progress until the returned stop. */
function showIndexProgress(): () => void {
  const indexLine = indexProgressLine(process.stderr)
  const stopListening = onIndexProgress((_root, p) => indexLine.update(p))
  return () => {
    stopListening()
    indexLine.close()
  }
}

/** What this run's flags fix for the session's turns here, over the stored settings. */
function turnSettingsFor(
  opts: EditOptions,
  commands: CommandSettings,
  mcp: HostTurnSettings['mcp'],
): HostTurnSettings {
  return {
    maxSteps: opts.maxSteps,
    maxToolCalls: opts.maxToolCalls,
    commands,
    mcp,
    repairRounds: opts.maxRepairs ?? 15,
  }
}

/** The stored command settings, with this run's flag. */
function commandsFor(store: Store, opts: EditOptions): CommandSettings {
  const stored = commandSettings(store, (message) => process.stderr.write(`stepwise: ${message}\n`))
  return opts.allowUnsandboxed ? { ...stored, allowUnsandboxed: true } : stored
}

/** Says once where the sandbox cannot run: what is missing, how to fix it, and what happens to commands meanwhile. */
function warnIfUnconfined(sandbox: SandboxStatus, commands: CommandSettings, opts: EditOptions): void {
  if (sandbox.available || commands.sandbox === 'off') return
  const meanwhile = commands.allowUnsandboxed
    ? 'commands run unconfined ("allowUnsandboxed": true)'
    : opts.approve === 'ask'
      ? 'each command is asked for, with this warning'
      : `commands are refused under ${opts.approve}`
  process.stderr.write(`stepwise: ${sandbox.summary}. ${sandbox.reason} Meanwhile ${meanwhile}.\n`)
}
