import { z } from 'zod'
import { gitCommitTool } from './git-commit'
import {
  capText,
  filteredDiff,
  gitRaw,
  hasCommits,
  openRepo,
  refProblem,
  type GitFailure,
  type GitRepo,
} from './git-repo'
import { isClean, readStatus } from './git-status'
import { viewLines } from './read'
import { optionalBool, optionalInt, optionalString } from './schema'
import { truncatedItems } from './text'
import { decodeText, isBinary } from '../../shared/text-bytes'
import type { Outcome, ReadTool, ToolContext, ToolDefinition, ToolResult } from './types'
import { errorMessage } from '../../shared/errors'
import { resolvePath } from './files'

/*
 * The git family (docs/tools.md#the-families), through git-safe (no program the repository
 * configures ever runs: hooks, filters, textconv, pagers…). Nothing here pushes, and no
 * output shows a denied file (.env, keys, …): see git-repo.ts for how.
 */

const LOG_DEFAULT = 20
const LOG_MAX = 200
/** Most entries per status list. */
const STATUS_MAX = 500

export function repoOf(ctx: ToolContext, timeoutMs?: number): Promise<Outcome<GitRepo>> {
  return openRepo({
    root: ctx.root,
    isDenied: (rel) => ctx.sandbox.isDenied(rel),
    signal: ctx.signal,
    timeoutMs,
  })
}

function capList<T>(result: Record<string, unknown>, key: string, items: T[]): void {
  result[key] = items.slice(0, STATUS_MAX)
  if (items.length > STATUS_MAX)
    result[`${key}_truncated`] = `${truncatedItems(STATUS_MAX)} of ${items.length}.`
}

const noInput = z.object({})

export const gitStatusTool: ReadTool<typeof noInput> = {
  name: 'git_status',
  family: 'git',
  mutating: false,
  description:
    'The repository state: branch (or detached HEAD), upstream ahead/behind, a merge or rebase in progress, conflicted files, staged and unstaged changes, untracked files. Denied files (.env, keys) are not listed.',
  input: noInput,
  async run(_input, ctx) {
    const repo = await repoOf(ctx)
    if (!repo.ok) return repo
    const status = await readStatus(repo)
    if (!status.ok) return status
    const result: ToolResult = {
      ok: true,
      branch: status.branch,
      detached: status.detached,
      head: status.head,
    }
    if (status.upstream) result.upstream = status.upstream
    if (status.operation) result.in_progress = status.operation
    capList(result, 'conflicted', status.conflicted)
    capList(result, 'staged', status.staged)
    capList(result, 'unstaged', status.unstaged)
    capList(result, 'untracked', status.untracked)
    result.clean = isClean(status)
    if (status.hidden > 0)
      result.hidden_denied = `${status.hidden} changed path(s) are denied (.env, keys, …) and not shown.`
    const notes: string[] = []
    if (!status.hasCommits) notes.push('The repository has no commits yet.')
    if (status.detached)
      notes.push(
        `HEAD is detached at ${status.head ?? '?'} (no branch is checked out); a commit made now belongs to no branch.`,
      )
    if (status.operation === 'merge')
      notes.push(
        status.conflicted.length > 0
          ? `A merge is in progress with ${status.conflicted.length} conflicted file(s): resolve the conflict markers in each, then conclude with git_commit (without files).`
          : 'A merge is in progress and all conflicts are resolved: conclude it with git_commit (without files).',
      )
    else if (status.operation)
      notes.push(`A ${status.operation} is in progress; the user may want to finish or abort it themselves.`)
    if (notes.length) result.note = notes.join(' ')
    return result
  },
}

const diffInput = z.object({
  path: optionalString('Only this file or folder (project-relative). Omit for the whole project.'),
  staged: optionalBool(
    'true: the staged changes (index vs HEAD, what a commit would record). Default false: unstaged changes (working tree vs index).',
  ),
  ref: optionalString(
    'Compare with this revision instead: "HEAD" (all uncommitted changes), "main", "HEAD~3", or a range "A..B" (between two commits).',
  ),
})

export const gitDiffTool: ReadTool<typeof diffInput> = {
  name: 'git_diff',
  family: 'git',
  mutating: false,
  description:
    'A unified diff from git, with a per-file count of added/deleted lines. Default: unstaged changes; staged=true: what is staged; ref: against a revision or between two ("A..B"). Untracked files are not in diffs (see git_status). Denied files are left out.',
  input: diffInput,
  async run(input, ctx) {
    const repo = await repoOf(ctx)
    if (!repo.ok) return repo
    const revArgs: string[] = []
    const ref = input.ref?.trim() || undefined
    if (ref) {
      const problem = refProblem(ref, { allowRange: true })
      if (problem) return { ok: false, error: problem }
      if (ref.includes('..') && input.staged)
        return {
          ok: false,
          error: 'staged cannot be combined with a range; use either staged=true or ref "A..B".',
        }
    }
    if (input.staged) revArgs.push('--cached')
    if (ref) revArgs.push(ref)
    const pathspecs: string[] = []
    if (input.path !== undefined && input.path.trim() !== '' && input.path.trim() !== '.') {
      const file = resolvePath(ctx, input.path)
      if (!file.ok) return { ok: false, error: file.error }
      pathspecs.push(`:(literal)${file.rel}`)
    }
    const diff = await filteredDiff(repo, { command: 'diff', revArgs, pathspecs }, ctx.sandbox.denyPatterns)
    if (!diff.ok) return explainRevisionError(diff, ref)
    const capped = capText(diff.diff, ctx.limits.maxReadBytes)
    const result: ToolResult = {
      ok: true,
      compared: ref
        ? ref.includes('..')
          ? `commits ${ref}`
          : `${input.staged ? 'staged changes' : 'working tree'} vs ${ref}`
        : input.staged
          ? 'staged changes (index vs HEAD)'
          : 'unstaged changes (working tree vs index)',
      files: diff.files,
      diff: capped.text,
    }
    if (capped.truncated) result.truncated = `${capped.truncated} Pass path to see one file's whole diff.`
    if (diff.hidden > 0) result.hidden_denied = `${diff.hidden} denied file(s) (.env, keys, …) left out.`
    if (diff.files.length === 0) result.note = 'No differences.'
    return result
  },
}

function explainRevisionError(err: GitFailure, ref: string | undefined): GitFailure {
  if (
    ref &&
    /unknown revision|bad revision|ambiguous argument|invalid object|bad object|not a valid object name/i.test(
      err.error,
    )
  )
    return {
      ok: false,
      error: `"${ref}" is not a revision in this repository. Use git_log to see recent commits, or a branch name from git_status.`,
    }
  if (/does not have any commits|bad default revision 'HEAD'/i.test(err.error))
    return {
      ok: false,
      error: 'The repository has no commits yet, so there is no HEAD to compare with or show.',
    }
  return err
}

const logInput = z.object({
  limit: optionalInt(`Most commits to return, newest first (default ${LOG_DEFAULT}, max ${LOG_MAX}).`),
})

export const gitLogTool: ReadTool<typeof logInput> = {
  name: 'git_log',
  family: 'git',
  mutating: false,
  description:
    'Recent commits on the current HEAD, newest first: hash, author, date, subject. Use git_show with a hash to see one.',
  input: logInput,
  async run(input, ctx) {
    const repo = await repoOf(ctx)
    if (!repo.ok) return repo
    if (!(await hasCommits(repo)))
      return { ok: true, commits: [], count: 0, note: 'The repository has no commits yet.' }
    const limit = Math.min(input.limit ?? LOG_DEFAULT, LOG_MAX)
    const out = await gitRaw(repo, [
      'log',
      `--max-count=${limit + 1}`,
      '--no-color',
      '--format=%H%x1f%h%x1f%an%x1f%aI%x1f%s%x1e',
    ])
    if (typeof out !== 'string') return out
    const commits = out
      .split('\x1e')
      .map((r) => r.trim())
      .filter(Boolean)
      .map((record) => {
        const [hash, short, author, date, subject] = record.split('\x1f')
        return { hash, short, author, date, subject }
      })
    const result: ToolResult = {
      ok: true,
      commits: commits.slice(0, limit),
      count: Math.min(commits.length, limit),
    }
    if (commits.length > limit)
      result.truncated = `${truncatedItems(limit)} Raise limit (max ${LOG_MAX}) to see older commits.`
    return result
  },
}

const showInput = z.object({
  ref: z
    .string()
    .describe(
      'A commit (hash, branch, tag, HEAD~1) to see its message and diff, or "REF:path" (e.g. "HEAD~1:src/app.ts") to read a file as it was in that commit.',
    ),
})

export const gitShowTool: ReadTool<typeof showInput> = {
  name: 'git_show',
  family: 'git',
  mutating: false,
  description:
    'One commit: hash, author, date, message, changed files and its diff. With "REF:path", the file\'s content at that commit, numbered like read_file. Denied files are left out.',
  input: showInput,
  async run(input, ctx) {
    const repo = await repoOf(ctx)
    if (!repo.ok) return repo
    const colon = input.ref.indexOf(':')
    if (colon >= 0) return showFileAt(repo, ctx, input.ref.slice(0, colon), input.ref.slice(colon + 1))
    const ref = input.ref.trim()
    const problem = refProblem(ref)
    if (problem) return { ok: false, error: problem }
    const type = await gitRaw(repo, ['cat-file', '-t', `${ref}`])
    if (typeof type !== 'string') return explainRevisionError(type, ref)
    if (type.trim() === 'blob')
      return {
        ok: false,
        error: `"${ref}" is a file object; read files at a commit with "REF:path" (e.g. "HEAD:src/app.ts").`,
      }
    if (type.trim() === 'tree')
      return {
        ok: false,
        error: `"${ref}" is a folder object; use list_files, or "REF:path" to read a file at a commit.`,
      }
    const meta = await gitRaw(repo, [
      'show',
      '-s',
      '--no-color',
      '--format=%H%x1f%P%x1f%an <%ae>%x1f%aI%x1f%B',
      `${ref}^{commit}`,
    ])
    if (typeof meta !== 'string') return explainRevisionError(meta, ref)
    const [hash, parents, author, date, ...message] = meta.split('\x1f')
    const diff = await filteredDiff(
      repo,
      { command: 'show', revArgs: [`${ref}^{commit}`] },
      ctx.sandbox.denyPatterns,
    )
    if (!diff.ok) return explainRevisionError(diff, ref)
    const capped = capText(diff.diff, ctx.limits.maxReadBytes)
    const result: ToolResult = {
      ok: true,
      hash: hash.trim(),
      parents: parents.trim() ? parents.trim().split(' ') : [],
      author,
      date,
      message: message.join('\x1f').trim(),
      files: diff.files,
      diff: capped.text,
    }
    if (capped.truncated)
      result.truncated = `${capped.truncated} Use git_diff with ref "${hash.trim().slice(0, 12)}~1..${hash.trim().slice(0, 12)}" and a path to see one file's whole diff.`
    if (diff.hidden > 0) result.hidden_denied = `${diff.hidden} denied file(s) (.env, keys, …) left out.`
    return result
  },
}

async function showFileAt(
  repo: GitRepo,
  ctx: ToolContext,
  ref: string,
  rawPath: string,
): Promise<ToolResult> {
  const rev = ref.trim() || 'HEAD'
  const problem = refProblem(rev)
  if (problem) return { ok: false, error: problem }
  const file = resolvePath(ctx, rawPath.trim() || '.')
  if (!file.ok) return { ok: false, error: file.error }
  const spec = `${rev}:./${file.rel === '.' ? '' : file.rel}`
  const type = await gitRaw(repo, ['cat-file', '-t', spec])
  if (typeof type !== 'string')
    return {
      ok: false,
      error: `"${file.rel}" does not exist at ${rev} (or ${rev} is not a revision). Use git_show "${rev}" to see which files that commit changed.`,
    }
  if (type.trim() === 'tree')
    return { ok: false, error: `"${file.rel}" is a folder at ${rev}; name a file inside it.` }
  let data: Buffer
  try {
    // cat-file prints the stored bytes: no textconv, no smudge filter.
    data = await repo.git.buffer(['cat-file', 'blob', spec])
  } catch (err) {
    return { ok: false, error: `git show failed: ${errorMessage(err)}` }
  }
  if (isBinary(data))
    return { ok: false, error: `"${file.rel}" is a binary file at ${rev}; only text can be shown.` }
  const { text } = decodeText(data)
  const view = viewLines(
    text,
    {},
    ctx.limits.maxReadBytes,
    () => 'Read the current version with read_file, or compare with git_diff.',
  )
  if (!view.ok) return view
  return { ok: true, ref: rev, path: file.rel, ...view.fields }
}

export { gitCommitTool }

/** The git family, in the order the model sees it. */
export const gitReadTools: readonly ToolDefinition[] = [gitStatusTool, gitDiffTool, gitLogTool, gitShowTool]
export const gitTools: readonly ToolDefinition[] = [...gitReadTools, gitCommitTool]
