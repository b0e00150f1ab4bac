import fs from 'node:fs'
import path from 'node:path'
import { isInside } from '../containment/paths'
import { openSafeGit, type SafeGit } from '../git/git-safe'
import { MAX_LINES_PER_READ, byteLength, truncatedLines } from './text'
import { pushAll } from '../../shared/arrays'
import type { Outcome, ToolFailure } from './types'
import { errorMessage } from '../../shared/errors'

/*
 * The git tools' access to the repository (through git-safe: nothing the
 * repository configures runs), and the rules that keep
 * denied files (.env, keys, …) out of everything git prints: diffs are listed
 * first, denied files excluded by pathspec, and the text filtered per file again.
 */

export type GitFailure = ToolFailure
const fail = (error: string): GitFailure => ({ ok: false, error })

export const NOT_A_REPO =
  'This project folder is not a git repository (no .git found here or above), so the git tools have nothing to work on. The other tools (list_files, read_file, search_in_files, …) still work.'

/** Reading commands are quick; a commit runs the repository's hooks, which may take a while. */
const READ_TIMEOUT_MS = 30_000
export const COMMIT_TIMEOUT_MS = 120_000

export interface GitRepo {
  git: SafeGit
  /** The project root (realpath'd). */
  root: string
  /** The project root relative to the repository's top level, POSIX, '' when they are the same. */
  prefix: string
  /** True when the root-relative path must never be shown. */
  isDenied(rel: string): boolean
}

export interface RepoOptions {
  root: string
  isDenied(rel: string): boolean
  signal?: AbortSignal
  timeoutMs?: number
  /** Let the repository's hooks run (an approved commit, when the user's settings allow hooks). */
  hooks?: boolean
}

/** The repository holding the project root, or the not-a-repository error for the model. */
export async function openRepo(opts: RepoOptions): Promise<Outcome<GitRepo>> {
  let git: SafeGit
  let toplevel: string
  try {
    git = await openSafeGit(opts.root, {
      signal: opts.signal,
      timeoutMs: opts.timeoutMs ?? READ_TIMEOUT_MS,
      hooks: opts.hooks,
    })
    toplevel = (await git.raw(['rev-parse', '--show-toplevel'])).trim()
  } catch (err) {
    const message = errorText(err)
    if (/not a git repository/i.test(message)) return fail(NOT_A_REPO)
    return fail(`git is not usable in this folder: ${message}`)
  }
  if (!toplevel) return fail(NOT_A_REPO)
  const top = fs.realpathSync(toplevel)
  const prefix = path.relative(top, opts.root).split(path.sep).join('/')
  // A core.worktree pointing elsewhere would show (and commit) files outside the project.
  if (!isInside(top, opts.root))
    return fail(
      `This repository's work tree (${top}) does not contain the project folder, so the git tools refuse to use it.`,
    )
  return { ok: true, git, root: opts.root, prefix, isDenied: opts.isDenied }
}

export function errorText(err: unknown): string {
  const text = errorMessage(err)
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .slice(0, 6)
      .join(' ') || 'unknown error'
  )
}

/** Runs git; a failure comes back as a value whose text names the command. */
export async function gitRaw(repo: GitRepo, args: string[]): Promise<string | GitFailure> {
  try {
    return await repo.git.raw(args)
  } catch (err) {
    return fail(`git ${args[0]} failed: ${errorText(err)}`)
  }
}

/** A path git printed relative to the repository's top level → project-relative, or undefined outside it. */
export function toProjectPath(repo: GitRepo, topRel: string): string | undefined {
  const p = topRel.replace(/\/$/, '')
  if (repo.prefix === '') return topRel
  if (p === repo.prefix) return undefined
  return topRel.startsWith(repo.prefix + '/') ? topRel.slice(repo.prefix.length + 1) : undefined
}

/**
 * A revision the model named: refused when it could be read as an option (`--output=…`)
 * or holds characters no revision needs. Returns the error text, or undefined when fine.
 */
export function refProblem(ref: string, opts: { allowRange?: boolean } = {}): string | undefined {
  const r = ref.trim()
  if (r === '') return 'ref is empty: give a commit, branch or tag, e.g. "HEAD~1" or "main".'
  if (r.startsWith('-')) return `"${ref}" is not a revision (it starts with "-").`
  if (!/^[\w./~^@{}+-]+$/.test(r))
    return `"${ref}" is not a revision git_* tools accept: use a commit hash, branch, tag or an expression such as HEAD~2.`
  if (!opts.allowRange && r.includes('..'))
    return `"${ref}" is a range; this tool takes one revision. Use git_diff with ref "A..B" for a range.`
  return undefined
}

/** Is there at least one commit? */
export async function hasCommits(repo: GitRepo): Promise<boolean> {
  const out = await gitRaw(repo, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'])
  return typeof out === 'string' && out.trim() !== ''
}

/** Does `ref` name a commit here? (A range checks both ends.) */
export async function commitExists(repo: GitRepo, ref: string): Promise<boolean> {
  const ends = ref.split(/\.\.\.?/).filter(Boolean)
  for (const end of ends.length ? ends : [ref]) {
    const out = await gitRaw(repo, ['rev-parse', '-q', '--verify', `${end}^{commit}`])
    if (typeof out !== 'string' || out.trim() === '') return false
  }
  return true
}

export type Operation = 'merge' | 'rebase' | 'cherry-pick' | 'revert'

/** An operation the repository is in the middle of, from the marker files git leaves in .git. */
export async function operationInProgress(repo: GitRepo): Promise<Operation | undefined> {
  const markers: [string, Operation][] = [
    ['rebase-merge', 'rebase'],
    ['rebase-apply', 'rebase'],
    ['MERGE_HEAD', 'merge'],
    ['CHERRY_PICK_HEAD', 'cherry-pick'],
    ['REVERT_HEAD', 'revert'],
  ]
  for (const [marker, op] of markers) {
    const rel = await gitRaw(repo, ['rev-parse', '--git-path', marker])
    if (typeof rel !== 'string') return undefined
    if (fs.existsSync(path.resolve(repo.root, rel.trim()))) return op
  }
  return undefined
}

/**
 * Pathspecs that keep denied files out of git's output, from the gitignore-style
 * deny patterns. Negations cannot be expressed; the per-file filter catches the rest.
 */
export function denyPathspecs(patterns: readonly string[]): string[] {
  const specs: string[] = []
  for (const raw of patterns) {
    const pattern = raw.trim()
    if (!pattern || pattern.startsWith('!') || pattern.startsWith('#')) continue
    const dirOnly = pattern.endsWith('/')
    const body = pattern.replace(/^\/+/, '').replace(/\/+$/, '')
    if (!body) continue
    const anchored = pattern.startsWith('/') || body.includes('/')
    const base = anchored ? body : `**/${body}`
    if (!dirOnly) specs.push(`:(exclude,glob)${base}`)
    specs.push(`:(exclude,glob)${base}/**`)
  }
  return specs
}

export interface DiffFile {
  path: string
  /** null for a binary file. */
  additions: number | null
  deletions: number | null
}

export interface FilteredDiff {
  files: DiffFile[]
  /** Denied files that changed and were left out. */
  hidden: number
  diff: string
}

/** What a filtered diff runs: `git diff` or `git show`, its revision arguments, the paths it covers (none: all). */
export interface DiffQuery {
  command: 'diff' | 'show'
  revArgs: string[]
  pathspecs?: string[]
}

/**
 * `git diff …` or `git show …` (diff part only) over the project, without renames
 * (a rename from .env would print its lines), denied files excluded three ways.
 */
export async function filteredDiff(
  repo: GitRepo,
  query: DiffQuery,
  denyPatterns: readonly string[],
): Promise<Outcome<FilteredDiff>> {
  const { command, revArgs, pathspecs = [] } = query
  const common = [
    command,
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--no-renames',
    '--ignore-submodules=dirty',
    '--relative',
    ...(command === 'show' ? ['--format='] : []),
  ]
  // The listing holds names and counts only, so it runs unfiltered: that is how hidden files are counted.
  const stat = await gitRaw(repo, [...common, '--numstat', '-z', ...revArgs, '--', ...pathspecs])
  if (typeof stat !== 'string') return stat
  const files: DiffFile[] = []
  const denied: string[] = []
  for (const entry of stat.split('\0')) {
    const m = /^\s*(-|\d+)\t(-|\d+)\t(.+)$/s.exec(entry)
    if (!m) continue
    const file = m[3]
    if (repo.isDenied(file)) denied.push(file)
    else
      files.push({
        path: file,
        additions: m[1] === '-' ? null : Number(m[1]),
        deletions: m[2] === '-' ? null : Number(m[2]),
      })
  }
  const excludes = denyPathspecs(denyPatterns)
  const literal = denied.map((p) => `:(exclude,literal)${p}`)
  const text = await gitRaw(repo, [...common, ...revArgs, '--', ...pathspecs, ...excludes, ...literal])
  if (typeof text !== 'string') return text
  const { diff, hidden } = dropDeniedSections(text, repo.isDenied)
  return { ok: true, files, hidden: Math.max(denied.length, hidden), diff }
}

/** Removes every file section whose path is denied; the last line of defence. */
export function dropDeniedSections(
  text: string,
  isDenied: (rel: string) => boolean,
): { diff: string; hidden: number } {
  const lines = text.split('\n')
  const out: string[] = []
  let keep = true
  let hidden = 0
  for (const line of lines) {
    if (
      line.startsWith('diff --git ') ||
      line.startsWith('diff --cc ') ||
      line.startsWith('diff --combined ')
    ) {
      const file = sectionPath(line)
      keep = file === undefined || !isDenied(file)
      if (!keep) hidden++
    }
    if (keep) out.push(line)
  }
  return { diff: out.join('\n'), hidden }
}

/** The path of a `diff --git a/P b/P` header (same on both sides without renames), or a combined header. */
function sectionPath(header: string): string | undefined {
  if (!header.startsWith('diff --git ')) {
    const rest = header.replace(/^diff --(cc|combined) /, '')
    return rest.startsWith('"') ? unquote(rest).value : rest
  }
  const rest = header.slice('diff --git '.length)
  if (rest.startsWith('"')) {
    const first = unquote(rest)
    return first.value.replace(/^a\//, '')
  }
  // "a/P b/P": both halves have the same length.
  const len = (rest.length - 5) / 2
  if (!Number.isInteger(len) || len <= 0) return undefined
  return rest.slice(2, 2 + len)
}

/** A C-style quoted string as git writes unusual paths: "a/t\"ab". */
function unquote(text: string): { value: string } {
  const bytes: number[] = []
  for (let i = 1; i < text.length; i++) {
    const c = text[i]
    if (c === '"') break
    if (c !== '\\') {
      pushAll(bytes, Buffer.from(c, 'utf8'))
      continue
    }
    const next = text[++i]
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(text.slice(i, i + 3), 8))
      i += 2
    } else
      bytes.push(
        ({ n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 } as Record<string, number>)[
          next
        ] ?? next.charCodeAt(0),
      )
  }
  return { value: Buffer.from(bytes).toString('utf8') }
}

/** Text cut at `maxLines` lines or `maxBytes`, with the explicit truncation marker. */
export function capText(
  text: string,
  maxBytes: number,
  maxLines = MAX_LINES_PER_READ,
): { text: string; truncated?: string } {
  if (text === '') return { text }
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n')
  const kept: string[] = []
  let bytes = 0
  for (const line of lines) {
    const size = byteLength(line) + 1
    if (kept.length >= maxLines || (bytes + size > maxBytes && kept.length > 0)) break
    kept.push(line)
    bytes += size
  }
  if (kept.length === lines.length) return { text: kept.join('\n') }
  return { text: kept.join('\n'), truncated: truncatedLines(kept.length, lines.length - kept.length) }
}
