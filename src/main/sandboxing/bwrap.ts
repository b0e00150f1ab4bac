import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { secretInodes, sharesSecretInode } from '../containment/secret-links'
import {
  SYSTEM_SECRETS,
  findProjectSecrets,
  type ProjectSecrets,
  hiddenByHost,
} from '../containment/project-secrets'
import { repoDirs } from './git-history'
import { HOME_CREDENTIALS } from '../containment/denylist'
import { isInsideResolved } from '../containment/paths'
import { isHomeCredential } from './secrets-mask'

/*
 * The command sandbox (docs/sandbox.md#commands) with bubblewrap. Confinement that root cannot
 * undo: a new user namespace (where the kernel allows one) and every capability
 * dropped, so mount, umount, remount and nsenter fail inside whoever runs
 * Stepwise; own pid/ipc/uts (and net, unless allowed) namespaces, a fresh /proc,
 * a new session (no TIOCSTI into the user's terminal). The file system is
 * read-only but for the project; /tmp, /var/tmp, /run and /dev/shm are private
 * (no host Unix sockets); $HOME is an empty tmpfs with toolchains bound back;
 * secrets are masked; every `.git` is read-only so code cannot plant hooks.
 */

export interface BwrapOptions {
  /** The project root (realpath'd): the only writable folder. */
  root: string
  network: boolean
  /** Extra folders under $HOME to keep visible, read-only (absolute or `~/…`). */
  readablePaths?: readonly string[]
  /** Defaults to os.homedir(). */
  home?: string
  /** Create a user namespace (default true; the probe says whether the kernel allows it). */
  userns?: boolean
  /** Pass `--disable-userns` (bwrap ≥ 0.8): no nested user namespaces inside. */
  disableNestedUserns?: boolean
  /** The project's secrets and `.git` entries when the caller already found them (the runner does). */
  project?: ProjectSecrets
  /** Object stores to hide (a history that holds a secrets file: git-history.ts). */
  hiddenObjects?: readonly string[]
}

/** bubblewrap's own limit on its arguments (`MAX_ARGS` in bubblewrap.c, 0.4 to 0.11). */
export const BWRAP_MAX_ARGS = 9_000

/**
 * At most this many mounts for the project's secrets, hard links and git folders (3 arguments
 * each): with the sockets (at most 1,000) and the rest, well under BWRAP_MAX_ARGS.
 */
export const MAX_PROJECT_MOUNTS = 1_500

/** Why the sandbox will not run a command here: said to the model and the user instead of running it. */
export class SandboxRefusal extends Error {}

/** Toolchains that commonly live in $HOME; bound back read-only when present, their credentials masked. */
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

/** Where Unix sockets live: each becomes a private tmpfs (when it exists and is a real folder). */
const SOCKET_DIRS = ['/tmp', '/var/tmp', '/run', '/var/run', '/var/lock']

/** The namespace and privilege flags, before any mount. */
export function isolationArgs(
  opts: Pick<BwrapOptions, 'network' | 'userns' | 'disableNestedUserns'>,
): string[] {
  const args: string[] = []
  if (opts.userns !== false) {
    args.push('--unshare-user')
    if (opts.disableNestedUserns) args.push('--disable-userns')
  }
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try')
  if (!opts.network) args.push('--unshare-net')
  // As root bwrap keeps its capabilities unless told: drop them all (bounding set included).
  args.push('--cap-drop', 'ALL', '--new-session', '--die-with-parent')
  return args
}

/** The bwrap arguments that precede `-- bash -c COMMAND`. */
export function bwrapArgs(opts: BwrapOptions): string[] {
  const home = path.resolve(opts.home ?? os.homedir())
  const root = path.resolve(opts.root)
  const args = [...isolationArgs(opts), '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']
  const masks = new Masks(args)

  // Private socket and scratch folders; the project is bound back below if it lives there.
  const privateDirs: string[] = []
  for (const dir of SOCKET_DIRS) {
    if (isRealDir(dir)) {
      args.push('--tmpfs', dir)
      privateDirs.push(dir)
    }
  }
  args.push('--tmpfs', '/dev/shm')
  privateDirs.push('/dev/shm')
  // What the system itself needs from /run: DNS (resolv.conf is often a link there), NixOS's tools.
  const keep = ['/run/current-system', '/run/wrappers']
  if (opts.network) keep.push(realpathOr('/etc/resolv.conf'))
  for (const p of keep)
    if (privateDirs.some((d) => isInsideResolved(d, p)) && fs.existsSync(p)) args.push('--ro-bind', p, p)

  const bound: string[] = [root]
  const homeHidden = home !== '/' && isRealDir(home) && !isInsideResolved(root, home)
  if (homeHidden) {
    args.push('--tmpfs', home)
    for (const dir of readableHomePaths(home, opts.readablePaths ?? [])) {
      args.push('--ro-bind', dir, dir)
      bound.push(dir)
    }
  }
  args.push('--bind', root, root)
  // Whether a host path can be seen inside at all (not under a tmpfs, nor in the hidden $HOME).
  const visible = (p: string) =>
    bound.some((b) => isInsideResolved(b, p)) ||
    (!privateDirs.some((d) => isInsideResolved(d, p)) && !(homeHidden && isInsideResolved(home, p)))

  // Home credentials that are visible despite the tmpfs: inside a folder bound back, or all of them.
  for (const rel of HOME_CREDENTIALS) {
    const p = path.join(home, rel)
    if (visible(p)) masks.add(p)
  }

  const project = opts.project ?? findProjectSecrets(root)
  const refusal = projectRefusal(project)
  if (refusal) throw new SandboxRefusal(refusal)
  for (const p of project.secrets) masks.add(p)
  for (const p of [...SYSTEM_SECRETS, ...hiddenByHost()]) if (visible(p)) masks.add(p)

  // `.git` read-only: no hooks or config that host-side git would run. A worktree's `.git`
  // file points to its gitdir, whose `commondir` is the main repository: bind both back
  // read-only, so git works even when they live in a hidden place, and cannot be written.
  for (const g of project.gitPaths) {
    args.push('--ro-bind', g, g)
    for (const dir of linkedGitDirs(g)) args.push('--ro-bind', dir, dir)
  }
  // After the binds above, which would cover it: an empty folder over each hidden object store.
  for (const objects of opts.hiddenObjects ?? []) masks.add(objects)
  // A hard link's other name may be outside the project: the shared inode stays read-only,
  // and one that shares a secret's inode (`notes.txt` linked to ~/.aws/credentials) is masked.
  const masked = new Set(project.secrets)
  const links = (project.hardLinks ?? []).filter((f) => !masked.has(f))
  const inodes = links.length > 0 ? secretInodes(home, project.secrets, SYSTEM_SECRETS) : undefined
  for (const f of links)
    if (inodes && sharesSecretInode(f, inodes)) masks.add(f)
    else args.push('--ro-bind', f, f)

  // Listening sockets elsewhere (found in /proc/net/unix), outside the private folders.
  // (The network namespace does not cover them: connect() goes through the file system.)
  for (const sock of hostSocketPaths()) if (visible(sock)) masks.add(sock)

  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', root)
  // `-- bash -c COMMAND` follows.
  if (args.length + 4 > BWRAP_MAX_ARGS)
    throw new SandboxRefusal(
      `The command sandbox would need ${args.length} arguments here, more than bubblewrap takes (${BWRAP_MAX_ARGS}), so no command can run confined. ` +
        'Fewer secrets files, hard-linked files or listening sockets would bring it under.',
    )
  return args
}

/**
 * Why the project cannot be masked whole, or undefined: the walk stopped before the end, or it
 * would take more mounts than the sandbox can be given. Either way no command runs half-masked.
 */
export function projectRefusal(project: ProjectSecrets): string | undefined {
  const n = (x: number) => x.toLocaleString('en-US')
  if (project.truncatedAt !== undefined)
    return (
      `The command sandbox stopped looking through this project after ${n(project.truncatedAt)} files and folders ` +
      '(node_modules and .git aside), so it cannot tell that every secrets file is hidden and every .git folder read-only. ' +
      'Commands are refused until the project is smaller: open a subfolder as the project, or move generated or ' +
      'vendored trees (build output, data sets, caches) out of it.'
    )
  const { secrets, hardLinks, gitPaths } = project
  const mounts = secrets.length + hardLinks.length + 2 * gitPaths.length
  if (mounts <= MAX_PROJECT_MOUNTS) return undefined
  return (
    `The command sandbox would need ${n(mounts)} mounts for this project (${n(secrets.length)} secrets files, ` +
    `${n(hardLinks.length)} files hard-linked to names outside it, ${n(gitPaths.length)} git folders); it takes at most ` +
    `${n(MAX_PROJECT_MOUNTS)}. Commands are refused until there are fewer: make hard-linked files plain copies ` +
    '(`cp -p FILE FILE.tmp && mv FILE.tmp FILE`) or remove their other names, and move secrets files out of the project.'
  )
}

/** Adds one mask per existing path: an empty read-only file over a file, an empty folder over a folder. */
class Masks {
  private seen = new Set<string>()
  constructor(private args: string[]) {}

  add(p: string): void {
    if (this.seen.has(p)) return
    this.seen.add(p)
    // No exception for an absent path: most listed secrets are absent, and throwing costs.
    const stat = lstatOrUndefined(p)
    if (!stat) return // absent, or in a folder we (and so the command) cannot enter: nothing to hide
    if (stat.isSymbolicLink()) return // bwrap would follow it; its target is handled where it lives
    const empty = emptyPlaceholders()
    this.args.push('--ro-bind', stat.isDirectory() ? empty.dir : empty.file, p)
  }
}

let placeholders: { file: string; dir: string } | undefined

/** An empty file and an empty folder, made once per process in a private folder, to bind over secrets. */
export function emptyPlaceholders(): { file: string; dir: string } {
  if (placeholders && fs.existsSync(placeholders.file) && fs.existsSync(placeholders.dir)) return placeholders
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mask-'))
  const file = path.join(base, 'empty')
  const dir = path.join(base, 'empty.d')
  fs.writeFileSync(file, '', { mode: 0o444 })
  fs.mkdirSync(dir, { mode: 0o555 })
  fs.chmodSync(base, 0o755)
  placeholders = { file, dir }
  return placeholders
}

/** Paths of listening Unix sockets in the host's network namespace (abstract ones have none). */
function hostSocketPaths(): string[] {
  let table: string
  try {
    table = fs.readFileSync('/proc/net/unix', 'utf8')
  } catch {
    return []
  }
  const found = new Set<string>()
  for (const line of table.split('\n').slice(1)) {
    const p = line.trim().split(/\s+/)[7]
    if (p && p.startsWith('/')) found.add(p)
    if (found.size >= 1000) break
  }
  return [...found]
}

/** For a `.git` file: the common git folder and the worktree's own gitdir, outermost first. */
function linkedGitDirs(gitPath: string): string[] {
  const dirs = isFile(gitPath) ? repoDirs(gitPath) : undefined
  if (!dirs) return []
  const { gitDir, commonDir } = dirs
  if (commonDir !== gitDir && isRealDir(commonDir) && !isInsideResolved(commonDir, gitDir))
    return [commonDir, gitDir]
  return isRealDir(commonDir) ? [commonDir] : [gitDir]
}

function isFile(p: string): boolean {
  return lstatOrUndefined(p)?.isFile() ?? false
}

function readableHomePaths(home: string, extra: readonly string[]): string[] {
  const fromPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((p) => p.startsWith('/'))
    .map((p) => path.resolve(p))
    .filter((p) => isInsideResolved(home, p))
  const wanted = [
    ...HOME_TOOLCHAINS.map((p) => path.join(home, p)),
    ...fromPath,
    ...extra.map((p) => (p.startsWith('~/') ? path.join(home, p.slice(2)) : path.resolve(home, p))),
  ]
  const seen = new Set<string>()
  const found = wanted
    .map((p) => path.resolve(p))
    .filter((abs) => {
      // A credential folder is never bound back, even when the user lists it.
      if (seen.has(abs) || !isInsideResolved(home, abs) || abs === home || isHomeCredential(abs, home))
        return false
      if (!fs.existsSync(abs)) return false
      seen.add(abs)
      return true
    })
  // A folder inside another one bound back needs no mount of its own (`~/.cargo/bin` in `~/.cargo`).
  return found.filter((p) => !found.some((q) => q !== p && isInsideResolved(q, p)))
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

function isRealDir(p: string): boolean {
  return lstatOrUndefined(p)?.isDirectory() ?? false
}

/** Absent without an exception (most listed paths are absent, and throwing costs); EACCES and the like too. */
function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}
