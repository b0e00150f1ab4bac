import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { bwrapArgs } from './bwrap'
import { findSecretsOnce } from '../containment/project-secrets'
import type { CommandSettings } from './settings'

/*
 * What the command sandbox guarantees on this machine, from a real probe (not
 * from bwrap being installed): a throwaway project with a `.env` and a `.git`
 * is run through the very arguments commands get, and the command inside reports
 * its capabilities, namespaces, /tmp, /run, the secret and `.git`. Probed once
 * (two or three bwrap runs, ~35–50 ms) and cached; hosts show `summary`, and refuse to
 * say "sandboxed" unless every guarantee below holds. A host that can go on meanwhile
 * starts the probe in the background (`probeSandboxSoon`); `sandboxStatus` then finds it
 * done, and the session's start does not wait on bwrap.
 */

export interface SandboxGuarantees {
  /** Its own user namespace (where the kernel allows one; root may go without, capabilities dropped). */
  userNamespace: boolean
  /** No effective and no bounding capabilities: mount, umount, nsenter all fail. */
  capabilitiesDropped: boolean
  /** Own pid namespace and a fresh /proc: no host process is visible. */
  pidNamespace: boolean
  /** Own ipc and uts namespaces. */
  ipcUts: boolean
  /** Own network namespace when network is off (abstract Unix sockets included). */
  networkIsolated: boolean
  /** /tmp is private. */
  privateTmp: boolean
  /** /run, /var/tmp and /dev/shm are private: no host Unix socket there. */
  privateSockets: boolean
  /** A `.env` in the project reads empty. */
  secretsMasked: boolean
  /** The project's `.git` cannot be written. */
  gitReadOnly: boolean
}

export interface SandboxStatus {
  available: boolean
  /** Why not, and how to fix it (shown once by the hosts). */
  reason?: string
  /** One line on what holds, e.g. "sandboxed (bubblewrap): user namespace, capabilities dropped, …". */
  summary: string
  guarantees?: SandboxGuarantees
  /** Arguments the probe found to work, for the runner. */
  userns: boolean
  disableNestedUserns: boolean
}

const HOW_TO_FIX =
  'Install bubblewrap ("bwrap") and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu; in Docker run with --security-opt seccomp=unconfined or as a privileged container), or set "allowUnsandboxed": true in the command settings to run commands unconfined.'

let cached: SandboxStatus | undefined
let probing: Promise<SandboxStatus> | undefined

/** Whether, and how well, commands are confined here; probed once and cached. */
export function sandboxStatus(): SandboxStatus {
  cached ??= runProbeSync(probe())
  return cached
}

/**
 * The same answer as `sandboxStatus`, probed without holding this thread while bwrap runs
 * (its programs run as child processes, on another core when there is one).
 */
export function probeSandboxSoon(): Promise<SandboxStatus> {
  if (cached) return Promise.resolve(cached)
  if (!probing) {
    // A probe that outlives a reset (tests) is no longer `probing`: it leaves its answer to nobody.
    const run: Promise<SandboxStatus> = runProbeAsync(probe()).then((status) =>
      probing === run ? (cached ??= status) : status,
    )
    // Awaited later (edit awaits it before the turn): a failure meanwhile must not end the process.
    run.catch(() => undefined)
    probing = run
  }
  return probing
}

/** For tests: forget the cached probe. */
export function resetSandboxStatus(): void {
  cached = undefined
  probing = undefined
}

/** A program the probe runs, and what it reported: the probe's steps are the same either way. */
interface ProbeRun {
  file: string
  args: string[]
  env?: NodeJS.ProcessEnv
}
interface ProbeOutput {
  status: number | null
  stdout: string
  stderr: string
  error?: Error
}
type Probe = Generator<ProbeRun, SandboxStatus, ProbeOutput>

const PROBE_TIMEOUT_MS = 10_000

function runProbeSync(steps: Probe): SandboxStatus {
  let step = steps.next()
  while (!step.done) {
    const { file, args, env } = step.value
    const run = spawnSync(file, args, { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, env })
    step = steps.next({
      status: run.status,
      stdout: run.stdout ?? '',
      stderr: run.stderr ?? '',
      error: run.error,
    })
  }
  return step.value
}

async function runProbeAsync(steps: Probe): Promise<SandboxStatus> {
  let step = steps.next()
  while (!step.done) {
    const { file, args, env } = step.value
    const output = await new Promise<ProbeOutput>((resolve) =>
      execFile(file, args, { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, env }, (error, stdout, stderr) => {
        // An exit code is a number; a spawn failure (ENOENT, …) or a timeout's kill is not.
        const code = (error as { code?: unknown } | null)?.code
        resolve({
          status: error ? (typeof code === 'number' ? code : null) : 0,
          stdout,
          stderr,
          error: error && typeof code !== 'number' ? error : undefined,
        })
      }),
    )
    step = steps.next(output)
  }
  return step.value
}

function unavailable(why: string): SandboxStatus {
  return {
    available: false,
    reason: `${why}. ${HOW_TO_FIX}`,
    summary: `not sandboxed: ${why}`,
    userns: false,
    disableNestedUserns: false,
  }
}

function* probe(): Probe {
  if (process.platform !== 'linux')
    return unavailable(`the command sandbox (bubblewrap) needs Linux; this is ${process.platform}`)
  const bwrap = findBwrap()
  if (!bwrap) return unavailable('bwrap (bubblewrap) is not installed')
  // Prefer a user namespace with nested ones disabled; older bwrap lacks --disable-userns;
  // root without user namespaces (some containers) still gets every capability dropped.
  const attempts = [
    { userns: true, disableNestedUserns: true },
    { userns: true, disableNestedUserns: false },
    ...(process.getuid?.() === 0 ? [{ userns: false, disableNestedUserns: false }] : []),
  ]
  let firstError = ''
  for (const flags of attempts) {
    const flagArgs = [
      ...(flags.userns ? ['--unshare-user'] : []),
      ...(flags.disableNestedUserns ? ['--disable-userns'] : []),
      '--unshare-pid',
      '--cap-drop',
      'ALL',
    ]
    const run = yield { file: bwrap, args: [...flagArgs, '--ro-bind', '/', '/', '--', 'true'] }
    if (run.status === 0) return yield* probeGuarantees(bwrap, flags)
    firstError ||= (run.stderr || run.error?.message || `exit code ${run.status}`).trim().split('\n')[0]
  }
  return unavailable(`bwrap is installed but cannot create a sandbox here (${firstError})`)
}

/** Runs the real arguments on a throwaway project and reads what the command inside reports. */
function* probeGuarantees(bwrap: string, flags: { userns: boolean; disableNestedUserns: boolean }): Probe {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-probe-'))
  // Its own name: a second probe running at once (probeSandboxSoon, then sandboxStatus) must not remove it.
  const marker = `${project}-marker`
  try {
    fs.writeFileSync(path.join(project, '.env'), 'STEPWISE_PROBE=secret\n')
    fs.mkdirSync(path.join(project, '.git'))
    fs.writeFileSync(marker, '')
    const script = [
      "grep -E '^Cap(Eff|Bnd):' /proc/self/status",
      'for n in user pid net ipc uts; do echo "ns-$n $(readlink /proc/self/ns/$n)"; done',
      `test -e ${marker} && echo tmp=shared || echo tmp=private`,
      'for d in /run /var/tmp /dev/shm; do test -d $d && echo "dev $d $(stat -c %d $d)"; done',
      'echo "env=$(cat .env 2>/dev/null | wc -c)"',
      'touch .git/probe 2>/dev/null && echo git=writable || echo git=readonly',
    ].join('\n')
    const run = yield {
      file: bwrap,
      args: [
        ...bwrapArgs({ root: project, network: false, ...flags, project: findSecretsOnce(project) }),
        '--',
        'bash',
        '-c',
        script,
      ],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    }
    if (run.status !== 0)
      return unavailable(
        `bwrap cannot run the sandbox here (${(run.stderr || run.error?.message || '').trim().split('\n')[0]})`,
      )
    return judge(run.stdout, flags)
  } finally {
    fs.rmSync(project, { recursive: true, force: true })
    fs.rmSync(marker, { force: true })
  }
}

function judge(out: string, flags: { userns: boolean; disableNestedUserns: boolean }): SandboxStatus {
  const line = (re: RegExp) => re.exec(out)?.[1]
  const hostNs = (n: string) => {
    try {
      return fs.readlinkSync(`/proc/self/ns/${n}`)
    } catch {
      return undefined
    }
  }
  const ownNs = (n: string) => {
    const inside = line(new RegExp(`^ns-${n} (.*)$`, 'm'))
    return Boolean(inside) && inside !== hostNs(n)
  }
  const zero = (cap: string) => /^0+$/.test(line(new RegExp(`^${cap}:\\s*([0-9a-f]+)$`, 'm')) ?? 'x')
  const devPrivate = [...out.matchAll(/^dev (\S+) (\d+)$/gm)].every(([, dir, dev]) => {
    try {
      return String(fs.statSync(dir).dev) !== dev
    } catch {
      return true
    }
  })
  const g: SandboxGuarantees = {
    userNamespace: ownNs('user'),
    capabilitiesDropped: zero('CapEff') && zero('CapBnd'),
    pidNamespace: ownNs('pid'),
    ipcUts: ownNs('ipc') && ownNs('uts'),
    networkIsolated: ownNs('net'),
    privateTmp: /^tmp=private$/m.test(out),
    privateSockets: devPrivate && /^dev \/dev\/shm /m.test(out),
    secretsMasked: /^env=0$/m.test(out),
    gitReadOnly: /^git=readonly$/m.test(out),
  }
  const missing = Object.entries(g)
    .filter(([k, held]) => !held && !(k === 'userNamespace' && process.getuid?.() === 0 && !flags.userns))
    .map(([k]) => k)
  const held = [
    g.userNamespace ? 'user namespace' : 'no user namespace (root, every capability dropped)',
    g.capabilitiesDropped && 'capabilities dropped',
    g.pidNamespace && g.ipcUts && g.networkIsolated && 'own pid/ipc/uts/net namespaces',
    g.privateTmp && g.privateSockets && 'private /tmp and sockets',
    g.secretsMasked && 'secrets masked',
    g.gitReadOnly && '.git read-only',
  ].filter(Boolean)
  if (missing.length > 0) {
    const why = `the sandbox runs but does not hold here (${missing.join(', ')} failed)`
    return { ...unavailable(why), guarantees: g }
  }
  return { available: true, summary: `sandboxed (bubblewrap): ${held.join(', ')}`, guarantees: g, ...flags }
}

function findBwrap(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue
    const candidate = path.join(dir, 'bwrap')
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      return candidate
    } catch {
      // not in this PATH entry
    }
  }
  return undefined
}

/**
 * Why commands would run unconfined here against the user's wishes, or undefined
 * when they run sandboxed, or the user chose to run them directly (`sandbox:
 * "off"`, `allowUnsandboxed: true`). `auto-edit` and `full-auto` refuse such
 * commands; `ask` asks for each one with this warning.
 */
export function unconfinedCommandProblem(
  settings: Pick<CommandSettings, 'sandbox' | 'allowUnsandboxed'>,
): string | undefined {
  if (settings.sandbox === 'off' || settings.allowUnsandboxed) return undefined
  const status = sandboxStatus()
  if (status.available) return undefined
  return `this command would run without the OS sandbox (${status.reason ?? status.summary})`
}
