import type { StatusResult } from 'simple-git'
import {
  errorText,
  gitRaw,
  hasCommits,
  operationInProgress,
  toProjectPath,
  type GitFailure,
  type GitRepo,
  type Operation,
} from './git-repo'

/** The working tree's state as git_status and git_commit see it, denied paths left out. */

export type ChangeKind = 'modified' | 'added' | 'deleted' | 'renamed' | 'copied' | 'type-changed'

export interface Change {
  path: string
  status: ChangeKind
  /** The old path of a rename or copy. */
  from?: string
}

export interface RepoStatus {
  /** The branch checked out; null when HEAD is detached. */
  branch: string | null
  detached: boolean
  /** Short hash of HEAD; null before the first commit. */
  head: string | null
  hasCommits: boolean
  upstream?: { name: string; ahead: number; behind: number }
  operation?: Operation
  staged: Change[]
  unstaged: Change[]
  untracked: string[]
  conflicted: string[]
  /** Changed paths left out because they are denied (.env, keys, …). */
  hidden: number
  /** How many of those are staged: a commit of the index would include them. */
  hiddenStaged: number
}

const KINDS: Record<string, ChangeKind> = {
  M: 'modified',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type-changed',
}

/**
 * `git status` through simple-git. `pathspecs` narrows it; `allUntracked` lists
 * each untracked file instead of collapsing new folders to `dir/`.
 */
export async function readStatus(
  repo: GitRepo,
  opts: { pathspecs?: string[]; allUntracked?: boolean } = {},
): Promise<RepoStatus | GitFailure> {
  let status: StatusResult
  try {
    const args = [`--untracked-files=${opts.allUntracked ? 'all' : 'normal'}`]
    if (opts.pathspecs?.length) args.push('--', ...opts.pathspecs)
    status = await repo.git.status(args)
  } catch (err) {
    return { ok: false, error: `git status failed: ${errorText(err)}` }
  }
  const committed = await hasCommits(repo)
  let head: string | null = null
  if (committed) {
    const out = await gitRaw(repo, ['rev-parse', '--short', 'HEAD'])
    head = typeof out === 'string' ? out.trim() : null
  }
  const result: RepoStatus = {
    branch: status.detached ? null : status.current,
    detached: status.detached,
    head,
    hasCommits: committed,
    operation: await operationInProgress(repo),
    staged: [],
    unstaged: [],
    untracked: [],
    conflicted: [],
    hidden: 0,
    hiddenStaged: 0,
  }
  if (status.tracking) result.upstream = { name: status.tracking, ahead: status.ahead, behind: status.behind }

  const conflicted = new Set(status.conflicted)
  for (const file of status.files) {
    const rel = toProjectPath(repo, file.path)
    if (rel === undefined) continue
    if (repo.isDenied(rel.replace(/\/$/, ''))) {
      result.hidden++
      if (KINDS[file.index] || conflicted.has(file.path)) result.hiddenStaged++
      continue
    }
    if (conflicted.has(file.path)) {
      result.conflicted.push(rel)
      continue
    }
    if (file.index === '?' && file.working_dir === '?') {
      result.untracked.push(rel)
      continue
    }
    if (file.index === '!') continue
    const from = file.from !== undefined ? toProjectPath(repo, file.from) : undefined
    const staged = KINDS[file.index]
    if (staged) result.staged.push(from ? { path: rel, status: staged, from } : { path: rel, status: staged })
    const unstaged = KINDS[file.working_dir]
    if (unstaged) result.unstaged.push({ path: rel, status: unstaged })
  }
  return result
}

export function isClean(status: RepoStatus): boolean {
  return (
    status.staged.length === 0 &&
    status.unstaged.length === 0 &&
    status.untracked.length === 0 &&
    status.conflicted.length === 0
  )
}
