import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/*
 * The command sandbox (DESIGN §4) with bubblewrap: the whole file system
 * read-only, the project writable, a private /tmp, $HOME hidden behind an empty
 * tmpfs (the project and the toolchains the user needs bound back), its own PID
 * namespace (when the command ends, everything it started dies with it) and no
 * network unless allowed — loopback included, since the namespace has its own.
 */

export interface SandboxStatus {
  available: boolean
  /** Why not, for the host to say once ("bwrap is not installed; commands run unsandboxed"). */
  reason?: string
}

let cached: SandboxStatus | undefined

/** Whether commands can run inside bwrap here; probed once (a few ms) and cached. */
export function sandboxStatus(): SandboxStatus {
  cached ??= probe()
  return cached
}

/** For tests: forget the cached probe. */
export function resetSandboxStatus(): void {
  cached = undefined
}

function probe(): SandboxStatus {
  if (process.platform !== 'linux')
    return {
      available: false,
      reason: `bubblewrap sandboxing needs Linux; on ${process.platform} commands run unsandboxed`,
    }
  const bwrap = findBwrap()
  if (!bwrap)
    return {
      available: false,
      reason:
        'bwrap (bubblewrap) is not installed, so commands run unsandboxed; install the "bubblewrap" package to sandbox them',
    }
  const run = spawnSync(bwrap, [...baseArgs(), '--unshare-net', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  })
  if (run.status === 0) return { available: true }
  const why = (run.stderr || run.error?.message || `exit code ${run.status}`).trim().split('\n')[0]
  return {
    available: false,
    reason: `bwrap is installed but cannot create a sandbox here (${why}); commands run unsandboxed. User namespaces may be disabled (sysctl kernel.unprivileged_userns_clone).`,
  }
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

function baseArgs(): string[] {
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    '--unshare-pid',
    '--die-with-parent',
  ]
}

export interface BwrapOptions {
  /** The project root (realpath'd): the only writable folder. */
  root: string
  network: boolean
  /** Extra folders under $HOME to keep visible, read-only (absolute or `~/…`). */
  readablePaths?: readonly string[]
  /** Defaults to os.homedir(). */
  home?: string
}

/** Toolchains that commonly live in $HOME and hold no secrets; bound back read-only when present. */
const HOME_TOOLCHAINS = [
  '.cargo',
  '.rustup',
  'go',
  '.m2',
  '.nvm',
  '.volta',
  '.pyenv',
  '.local/bin',
  '.local/lib',
  '.deno',
  '.bun',
  '.sdkman',
]

/** Sockets that would let a command escape (container daemons) or reach the user's agents. */
const HIDDEN_SOCKETS = [
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/run/podman/podman.sock',
]

/** The bwrap arguments that precede `-- bash -c COMMAND`. */
export function bwrapArgs(opts: BwrapOptions): string[] {
  const args = baseArgs()
  const home = path.resolve(opts.home ?? os.homedir())
  const root = path.resolve(opts.root)
  if (home !== '/' && isDir(home) && !isInside(home, root)) {
    args.push('--tmpfs', home)
    for (const dir of readableHomePaths(home, opts.readablePaths ?? [])) args.push('--ro-bind', dir, dir)
  }
  if (isDir('/run/user')) args.push('--tmpfs', '/run/user')
  for (const socket of HIDDEN_SOCKETS) if (fs.existsSync(socket)) args.push('--ro-bind', '/dev/null', socket)
  args.push('--bind', root, root)
  if (!opts.network) args.push('--unshare-net')
  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', root)
  return args
}

function readableHomePaths(home: string, extra: readonly string[]): string[] {
  const fromPath = (process.env.PATH ?? '').split(path.delimiter).filter((p) => p && isInside(p, home))
  const wanted = [
    ...HOME_TOOLCHAINS.map((p) => path.join(home, p)),
    ...fromPath,
    ...extra.map((p) => (p.startsWith('~/') ? path.join(home, p.slice(2)) : path.resolve(home, p))),
  ]
  const seen = new Set<string>()
  return wanted.filter((p) => {
    const abs = path.resolve(p)
    if (seen.has(abs) || !isInside(abs, home) || !fs.existsSync(abs)) return false
    seen.add(abs)
    return true
  })
}

/** True when `child` is `parent` or below it. */
function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child)
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}
