import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { isInside } from '../containment/paths'
import { foreignGitDir, worktreeTop } from './git-dir'

/*
 * Every host-side git call of the core goes through here. The repository is
 * untrusted: a sandboxed command (or a cloned project) can write `.git/config`,
 * hooks and `.gitattributes`, and git would run whatever program they name
 * (fsmonitor, hooks, pagers, external diff, textconv, clean/smudge filters,
 * editors, ssh, gpg, credential helpers…) outside the sandbox. So each call:
 *   - runs with an allowlisted environment (no GIT_* from the parent, no EDITOR,
 *     no GIT_SSH_COMMAND…), the system config off, the user's own global config kept;
 *   - switches off, through command-scope config (GIT_CONFIG_COUNT, which wins
 *     over every file and reaches the git processes git itself starts), the
 *     programs the tools never need;
 *   - for every program-naming key the repository's own config sets (includes
 *     followed), puts back the user's global value or a harmless one.
 * Hooks stay off unless the caller passes `hooks: true` (the user's setting,
 * for an approved commit only): then the repository's hooks run, wherever its
 * core.hooksPath puts them.
 */

export class GitError extends Error {
  override name = 'GitError'
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message)
  }
}

export interface SafeGitOptions {
  signal?: AbortSignal
  timeoutMs?: number
  /** Run the repository's hooks (only for a commit the user approved, and only when their settings say so). */
  hooks?: boolean
}

export interface SafeGit {
  /** The folder git runs in. */
  cwd: string
  /** Runs `git ARGS`; stdout as text. Throws GitError with git's stderr on failure. */
  raw(args: string[]): Promise<string>
  /** The same, stdout as bytes (file contents). */
  buffer(args: string[]): Promise<Buffer>
}

const DEFAULT_TIMEOUT_MS = 30_000
/** Output beyond this is an error rather than a memory problem (diffs are capped later anyway). */
const MAX_OUTPUT = 256 * 1024 * 1024

/** Variables git may see from the parent: locale, home (the user's ~/.gitconfig), identity, Windows basics. */
const ENV_ALLOW = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'TZ',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'GIT_CONFIG_GLOBAL',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'EMAIL',
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
])

/** The environment every host git call gets. */
export function safeGitEnv(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(parent)) {
    if (value === undefined) continue
    if (ENV_ALLOW.has(key.toUpperCase()) || (/^LC_/i.test(key) && key.toUpperCase() !== 'LC_ALL'))
      env[key] = value
  }
  return {
    ...env,
    // Errors are matched in English.
    LC_MESSAGES: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    // Reading commands must not rewrite the index (it would also fire post-index-change).
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GCM_INTERACTIVE: 'never',
  }
}

/** Always set, whatever any config file says: nothing the tools need runs a program. */
const FIXED: [string, string][] = [
  ['core.fsmonitor', 'false'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['sequence.editor', 'true'],
  ['core.askPass', ''],
  ['credential.helper', ''],
  ['diff.external', 'true'],
  ['log.showSignature', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['submodule.recurse', 'false'],
  // Looking inside a dirty submodule runs a git there, under config this client never read.
  ['diff.ignoreSubmodules', 'dirty'],
  ['status.submoduleSummary', 'false'],
  // `diff.submodule=diff` diffs a submodule whose commit moved with a git inside it, under its own config.
  ['diff.submodule', 'short'],
  // Output is parsed and shown to a model: plain paths, no colours, the standard a/ b/ prefixes.
  ['core.quotePath', 'false'],
  ['color.ui', 'false'],
  ['diff.noprefix', 'false'],
  ['diff.mnemonicPrefix', 'false'],
]
const HOOKS_OFF = '/dev/null'

/**
 * Config keys (lower-case section and key, `*` for a subsection) that name a
 * program, and what a repository-set value is replaced with when the user's
 * global config has none.
 */
const PROGRAM_KEYS: [RegExp, string][] = [
  [/^core\.hookspath$/, HOOKS_OFF],
  [/^core\.fsmonitor$/, 'false'],
  [/^core\.(pager|askpass|gitproxy|alternaterefscommand)$/, ''],
  [/^core\.sshcommand$/, 'ssh'],
  [/^(core|sequence)\.editor$/, 'true'],
  [/^diff\.external$/, 'true'],
  [/^gpg\.program$/, 'gpg'],
  [/^gpg\.openpgp\.program$/, 'gpg'],
  [/^gpg\.x509\.program$/, 'gpgsm'],
  [/^gpg\.ssh\.program$/, 'ssh-keygen'],
  [/^gpg\.ssh\.defaultkeycommand$/, ''],
  [/^(commit|tag)\.gpgsign$/, 'false'],
  [/^credential\.(.+\.)?helper$/, ''],
  [/^filter\..+\.(clean|smudge|process)$/, ''],
  [/^filter\..+\.required$/, 'false'],
  [/^diff\..+\.(command|textconv)$/, ''],
  [/^merge\..+\.driver$/, ''],
  [/^(diff|merge)tool\..+\.(cmd|path)$/, ''],
  [/^pager\..+$/, 'false'],
  [/^remote\..+\.(uploadpack|receivepack|proxy)$/, ''],
  [/^uploadpack\.packobjectshook$/, ''],
  [/^(trailer|tar)\..+\.(cmd|command)$/, ''],
]

/** `section.sub.key` with section and key lower-cased (as git compares them), the subsection kept. */
function normalKey(key: string): string {
  const first = key.indexOf('.')
  const last = key.lastIndexOf('.')
  if (first < 0) return key.toLowerCase()
  if (first === last) return key.toLowerCase()
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`
}

function neutralFor(key: string): string | undefined {
  const lower = key.toLowerCase()
  for (const [pattern, value] of PROGRAM_KEYS) if (pattern.test(lower)) return value
  return undefined
}

interface ConfigEntry {
  scope: string
  key: string
  value: string
}

/** `git config --list --show-scope -z`: reading config runs nothing; includes are followed (and marked `local`). */
export function parseConfigList(out: string): ConfigEntry[] {
  const entries: ConfigEntry[] = []
  const parts = out.split('\0')
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i]
    const record = parts[i + 1]
    const nl = record.indexOf('\n')
    const key = nl < 0 ? record : record.slice(0, nl)
    entries.push({ scope, key: normalKey(key), value: nl < 0 ? 'true' : record.slice(nl + 1) })
  }
  return entries
}

/** The user's own config scopes; everything else (local, worktree, a `.git` that points elsewhere) is the repository's. */
const USER_SCOPES = new Set(['global', 'system', 'command'])

/**
 * The command-scope settings for one repository: the fixed ones, then every
 * program key the repository sets, replaced by the user's value or a harmless one.
 */
export function hardeningFor(
  entries: ConfigEntry[],
  opts: { hooks?: boolean; distrustGlobal?: boolean; submodules?: readonly string[] } = {},
): [string, string][] {
  const trusted = (scope: string) => USER_SCOPES.has(scope) && !(opts.distrustGlobal && scope === 'global')
  const settings = new Map<string, string>(FIXED)
  const userValue = new Map<string, string>()
  for (const e of entries) if (trusted(e.scope)) userValue.set(e.key, e.value)
  for (const e of entries) {
    if (trusted(e.scope)) continue
    const neutral = neutralFor(e.key)
    if (neutral === undefined || settings.has(e.key)) continue
    // Hooks the user turned on run where the project keeps them (husky sets core.hooksPath).
    if (opts.hooks && e.key === 'core.hookspath') continue
    settings.set(e.key, userValue.get(e.key) ?? neutral)
  }
  if (!opts.hooks) settings.set('core.hooksPath', HOOKS_OFF)
  // A submodule's `ignore = none` (in .gitmodules or the config) beats diff.ignoreSubmodules: git
  // would run a status inside it, under the submodule's own filters and fsmonitor. Its commit only.
  const names = new Set(opts.submodules ?? [])
  for (const e of entries) {
    const m = /^submodule\.(.+)\.[^.]+$/.exec(e.key)
    if (m && !trusted(e.scope)) names.add(m[1])
  }
  for (const name of names) settings.set(`submodule.${name}.ignore`, 'dirty')
  return [...settings]
}

/**
 * Whether the index may hold a `.gitmodules` (git reads it from there when the worktree's file is
 * gone). Version 4 indexes shorten names against the previous one, so look for the tail only.
 */
function indexMentionsGitmodules(top: string): boolean {
  const index = path.join(top, '.git', 'index')
  try {
    const st = fs.statSync(index, { throwIfNoEntry: false })
    if (!st?.isFile()) return false
    if (st.size > 32 * 1024 * 1024) return true
    const data = fs.readFileSync(index)
    return data.includes(data.readUInt32BE(4) === 4 ? 'modules\0' : '.gitmodules\0')
  } catch {
    return true
  }
}

/** Submodule names in `.gitmodules`, the worktree's or else the index's (read as config: that runs nothing). */
async function submoduleNames(
  cwd: string,
  env: Record<string, string>,
  opts: SafeGitOptions,
): Promise<string[]> {
  const top = worktreeTop(cwd)
  if (!top) return []
  const file = path.join(top, '.gitmodules')
  const source = fs.existsSync(file)
    ? ['-f', file]
    : indexMentionsGitmodules(top)
      ? ['--blob', ':.gitmodules']
      : undefined
  if (!source) return []
  const out = await exec(cwd, ['config', ...source, '--list', '--name-only', '-z'], env, opts).catch(() =>
    Buffer.alloc(0),
  )
  const names = new Set<string>()
  for (const key of out.toString('utf8').split('\0')) {
    const m = /^submodule\.(.+)\.[^.]+$/s.exec(key)
    if (m) names.add(m[1])
  }
  return [...names]
}

/** Command-scope config as environment variables: keys and values of any shape, inherited by git's own children. */
function configEnv(settings: [string, string][]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) }
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  return env
}

function exec(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  opts: SafeGitOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) return reject(new GitError('git was stopped before it started', null))
    const child = spawn('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let size = 0
    let failure: string | undefined
    const stop = (why: string) => {
      failure ??= why
      child.kill('SIGKILL')
    }
    const timer = setTimeout(() => stop('git timed out'), opts.timeoutMs ?? DEFAULT_TIMEOUT_MS)
    const onAbort = () => stop('git was stopped')
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    child.stdout.on('data', (d: Buffer) => {
      size += d.length
      if (size > MAX_OUTPUT) stop('git printed more than the tools can hold')
      else out.push(d)
    })
    child.stderr.on('data', (d: Buffer) => err.push(d))
    child.on('error', (e) => {
      clearTimeout(timer)
      reject(new GitError(`git could not start: ${e.message}`, null))
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      opts.signal?.removeEventListener('abort', onAbort)
      const stderr = Buffer.concat(err).toString('utf8').trim()
      if (failure) return reject(new GitError(failure, code))
      if (code !== 0) return reject(new GitError(stderr || `git exited with code ${code}`, code))
      resolve(Buffer.concat(out))
    })
  })
}

/** The user's global config files, as git finds them. */
function globalConfigFiles(env: Record<string, string>): string[] {
  if (env.GIT_CONFIG_GLOBAL) return [path.resolve(env.GIT_CONFIG_GLOBAL)]
  const home = env.HOME ?? env.USERPROFILE
  const xdg = env.XDG_CONFIG_HOME || (home ? path.join(home, '.config') : undefined)
  return [home && path.join(home, '.gitconfig'), xdg && path.join(xdg, 'git', 'config')].filter(
    (p): p is string => Boolean(p),
  )
}

/**
 * A git client for `cwd` that runs nothing the repository configures. Reads the
 * config once (that itself runs no program) to learn which keys to override.
 */
export async function openSafeGit(cwd: string, opts: SafeGitOptions = {}): Promise<SafeGit> {
  const foreign = foreignGitDir(cwd)
  if (foreign) throw new GitError(`${foreign}.`, null)
  const base = safeGitEnv()
  // A project that holds the user's global config (a project opened at $HOME) can rewrite it: distrust it then.
  const distrustGlobal = globalConfigFiles(base).some((f) => isInside(path.resolve(cwd), path.resolve(f)))
  const fixedEnv = { ...base, ...configEnv(hardeningFor([], opts)) }
  const listed = await exec(cwd, ['config', '--list', '--show-scope', '-z'], fixedEnv, opts).catch(
    (err: GitError) => {
      // Outside a repository there is no local config to distrust; anything else is a real failure.
      if (/not a git repository/i.test(err.message)) return Buffer.alloc(0)
      throw err
    },
  )
  const entries = parseConfigList(listed.toString('utf8'))
  const submodules = await submoduleNames(cwd, fixedEnv, opts)
  const env = { ...base, ...configEnv(hardeningFor(entries, { ...opts, distrustGlobal, submodules })) }
  const run = (args: string[]) => exec(cwd, args, env, opts)
  return {
    cwd: path.resolve(cwd),
    raw: async (args) => (await run(args)).toString('utf8'),
    buffer: run,
  }
}

/** One hardened git command in `cwd`; for callers that run a single command. */
export async function safeGitRaw(cwd: string, args: string[], opts: SafeGitOptions = {}): Promise<string> {
  return (await openSafeGit(cwd, opts)).raw(args)
}
