import { spawn } from 'node:child_process'
import path from 'node:path'
import { SandboxRefusal, bwrapArgs } from './bwrap'
import { DEFAULT_CAPTURE_LIMITS, OutputCapture, type CaptureLimits, type OutputStream } from './capture'
import { childEnv } from './env'
import { historiesWithSecrets } from './git-history'
import { Redactor, envSecrets, secretFileValues } from './redact'
import { sandboxStatus } from './sandbox-probe'
import { refreshProjectSecrets } from './secrets-mask'

/*
 * Runs one command line with `bash -c` in its own process group (in bwrap when
 * asked), streaming its output and keeping a capped copy. Nothing it starts may
 * outlive it: on timeout or abort the whole group gets SIGTERM, then SIGKILL;
 * when the main process exits, whatever it left running in the background is
 * killed, so the result returns promptly and no process leaks.
 */

export interface RunOptions {
  command: string
  cwd: string
  timeoutMs: number
  signal?: AbortSignal
  onOutput?: (stream: OutputStream, text: string) => void
  /**
   * Run inside bwrap with these settings; null/undefined runs directly. Where the
   * sandbox cannot run, the command runs directly too (`sandboxed: false`): the
   * approval layer decides beforehand whether that is allowed.
   */
  sandbox?: { network: boolean; readablePaths?: readonly string[] } | null
  /** The environment the allowlist picks from (default process.env). */
  env?: NodeJS.ProcessEnv
  /** Extra variable names (or `PREFIX_*`) the command may see, from the settings. */
  envAllow?: readonly string[]
  limits?: Partial<CaptureLimits>
  /** Between SIGTERM and SIGKILL (default 2000 ms). */
  killGraceMs?: number
  /** The secrets walk's limit (default MAX_WALK_ENTRIES; tests use a small one). */
  walkLimit?: number
}

export interface RunResult {
  exitCode: number | null
  /** The signal that ended the main process, when one did. */
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
  durationMs: number
  /** Head and tail of the combined output, with a `[TRUNCATED: N bytes omitted]` marker between. */
  output: string
  totalBytes: number
  omittedBytes: number
  sandboxed: boolean
  /** Set when the command could not be started at all (or the sandbox refused to start it, saying why). */
  spawnError?: string
  /** What the sandbox hid from this command that the model should know of (a repository's history). */
  notes?: string[]
  /** Process group id, for tests that check nothing survived. */
  pid?: number
}

/** After the main process exits, how long to wait for its pipes to drain before giving up on them. */
const DRAIN_MS = 2000

/** A command the sandbox would not start: nothing ran. */
function refused(reason: string, started: number): RunResult {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    durationMs: Math.round(performance.now() - started),
    output: '',
    totalBytes: 0,
    omittedBytes: 0,
    sandboxed: true,
    spawnError: reason,
  }
}

export async function runCommand(opts: RunOptions): Promise<RunResult> {
  const started = performance.now()
  const launch = await prepareLaunch(opts)
  if (launch.kind === 'refused') return refused(launch.reason, started)
  return supervise(opts, launch, started)
}

/** What to start, and what its output is read with. */
interface Launch {
  kind: 'launch'
  file: string
  args: string[]
  redactor: Redactor
  sandboxed: boolean
  notes: string[]
}

/**
 * The command line to start — in bwrap when asked and available — and the redactor of its output;
 * or why the sandbox refused to start it.
 */
async function prepareLaunch(opts: RunOptions): Promise<Launch | { kind: 'refused'; reason: string }> {
  // One look at the tree serves both the masks and the redaction of what the command prints.
  const project = await refreshProjectSecrets(opts.cwd, opts.walkLimit)
  const redactor = new Redactor([
    ...secretFileValues(project.secrets),
    ...envSecrets({ ...process.env, ...opts.env }),
  ])
  const status = opts.sandbox ? sandboxStatus() : undefined
  const sandboxed = Boolean(status?.available)
  const hidden = sandboxed ? await historiesWithSecrets(project.gitPaths) : []
  const notes = hidden.map((h) => hiddenHistoryNote(opts.cwd, h))
  if (!sandboxed)
    return { kind: 'launch', file: 'bash', args: ['-c', opts.command], redactor, sandboxed, notes }
  try {
    const sandboxArgs = bwrapArgs({
      root: opts.cwd,
      ...opts.sandbox!,
      userns: status!.userns,
      disableNestedUserns: status!.disableNestedUserns,
      project,
      hiddenObjects: hidden.map((h) => h.objects),
    })
    return {
      kind: 'launch',
      file: 'bwrap',
      args: [...sandboxArgs, '--', 'bash', '-c', opts.command],
      redactor,
      sandboxed,
      notes,
    }
  } catch (err) {
    if (!(err instanceof SandboxRefusal)) throw err
    return { kind: 'refused', reason: err.message }
  }
}

/** What the model is told of a repository history the sandbox hides, and how to lift it. */
function hiddenHistoryNote(cwd: string, h: { objects: string; why: string }): string {
  return (
    `\`${path.relative(cwd, h.objects) || h.objects}\` is hidden from commands: ${h.why}. git commands fail here ` +
    '(`fatal: bad object HEAD`); use the git tools (git_status, git_log, git_show, git_diff). To lift it, remove the file ' +
    'from the history (git filter-repo), expire the reflog, prune, and rotate the secret.'
  )
}

/** Signals a whole process group; one already gone is not an error. */
function groupKiller(pid: number | undefined): (sig: NodeJS.Signals) => void {
  return (sig) => {
    if (pid === undefined) return
    try {
      process.kill(-pid, sig)
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

/** Starts the launch in its own process group and waits for it, its timeout, or the abort. */
function supervise(opts: RunOptions, launch: Launch, started: number): Promise<RunResult> {
  const { file, args, sandboxed, notes } = launch
  const capture = new OutputCapture(
    opts.onOutput,
    { ...DEFAULT_CAPTURE_LIMITS, ...opts.limits },
    launch.redactor,
  )
  const grace = opts.killGraceMs ?? 2000

  return new Promise((resolve) => {
    let timedOut = false
    let aborted = false
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null
    let spawnError: string | undefined
    let settled = false
    const timers: NodeJS.Timeout[] = []

    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: childEnv(opts.env, opts.envAllow),
      // Own process group (and session): one kill reaches everything it starts.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const pid = child.pid

    const killGroup = groupKiller(pid)
    const stop = (why: 'timeout' | 'abort') => {
      if (exit || settled) return
      if (why === 'timeout') timedOut = true
      else aborted = true
      killGroup('SIGTERM')
      timers.push(setTimeout(() => killGroup('SIGKILL'), grace))
    }

    timers.push(setTimeout(() => stop('timeout'), opts.timeoutMs))
    const onAbort = () => stop('abort')
    if (opts.signal?.aborted) queueMicrotask(onAbort)
    else opts.signal?.addEventListener('abort', onAbort, { once: true })

    child.stdout.on('data', (chunk: Buffer) => capture.push('stdout', chunk))
    child.stderr.on('data', (chunk: Buffer) => capture.push('stderr', chunk))

    const finish = () => {
      if (settled) return
      settled = true
      for (const t of timers) clearTimeout(t)
      opts.signal?.removeEventListener('abort', onAbort)
      child.stdout.destroy()
      child.stderr.destroy()
      capture.end()
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
        output: capture.text(),
        totalBytes: capture.total,
        omittedBytes: capture.omitted,
        sandboxed,
        spawnError,
        pid,
        ...(notes.length ? { notes } : {}),
      })
    }

    child.on('error', (err) => {
      spawnError = `could not start ${file}: ${err.message}`
      finish()
    })
    child.on('exit', (code, signal) => {
      exit = { code, signal }
      // Background children (`sleep 100 &`) would hold the pipes open: end them now.
      killGroup('SIGKILL')
      timers.push(setTimeout(finish, DRAIN_MS))
    })
    child.on('close', finish)
  })
}
