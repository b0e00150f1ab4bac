import {
  errorText,
  gitRaw,
  hasCommits,
  operationInProgress,
  toProjectPath,
  type GitRepo,
  type Operation,
} from './git-repo'
import { pushAll } from '../../shared/arrays'
import type { Outcome } from './types'

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

/** One entry of `git status --porcelain=v2`: X (index) and Y (work tree) as letters, '.' unchanged. */
interface StatusEntry {
  path: string
  from?: string
  index: string
  workTree: string
  kind: 'changed' | 'untracked' | 'ignored' | 'conflicted'
}

interface StatusHeader {
  oid?: string
  head?: string
  upstream?: string
  ahead: number
  behind: number
}

/** Parses `git status --porcelain=v2 --branch -z` (renames carry their old path in the next field). */
export function parseStatusV2(out: string): { header: StatusHeader; entries: StatusEntry[] } {
  const header: StatusHeader = { ahead: 0, behind: 0 }
  const entries: StatusEntry[] = []
  const fields = out.split('\0')
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]
    if (f.startsWith('# ')) {
      const [, name, ...rest] = f.split(' ')
      const value = rest.join(' ')
      if (name === 'branch.oid') header.oid = value
      else if (name === 'branch.head') header.head = value
      else if (name === 'branch.upstream') header.upstream = value
      else if (name === 'branch.ab') {
        const m = /^\+(\d+) -(\d+)$/.exec(value)
        if (m) [header.ahead, header.behind] = [Number(m[1]), Number(m[2])]
      }
    } else if (f.startsWith('1 ') || f.startsWith('2 ') || f.startsWith('u ')) {
      // Fixed fields before the path: 1 → 8, 2 → 9 (plus the old path next), u → 10.
      const skip = f[0] === '1' ? 8 : f[0] === '2' ? 9 : 10
      const parts = f.split(' ')
      const entry: StatusEntry = {
        path: parts.slice(skip).join(' '),
        index: parts[1][0],
        workTree: parts[1][1],
        kind: f[0] === 'u' ? 'conflicted' : 'changed',
      }
      if (f[0] === '2') entry.from = fields[++i]
      entries.push(entry)
    } else if (f.startsWith('? '))
      entries.push({ path: f.slice(2), index: '?', workTree: '?', kind: 'untracked' })
    else if (f.startsWith('! '))
      entries.push({ path: f.slice(2), index: '!', workTree: '!', kind: 'ignored' })
  }
  return { header, entries }
}

/**
 * `git status` (porcelain v2). `pathspecs` narrows it; `allUntracked` lists
 * each untracked file instead of collapsing new folders to `dir/`.
 */
export async function readStatus(
  repo: GitRepo,
  opts: { pathspecs?: string[]; allUntracked?: boolean } = {},
): Promise<Outcome<RepoStatus>> {
  let parsed: ReturnType<typeof parseStatusV2>
  try {
    const args = [
      'status',
      '--porcelain=v2',
      '--branch',
      '-z',
      `--untracked-files=${opts.allUntracked ? 'all' : 'normal'}`,
      // A dirty submodule would need a git inside it, under the submodule's own config.
      '--ignore-submodules=dirty',
    ]
    if (opts.pathspecs?.length) pushAll(args, ['--', ...opts.pathspecs])
    parsed = parseStatusV2(await repo.git.raw(args))
  } catch (err) {
    return { ok: false, error: `git status failed: ${errorText(err)}` }
  }
  const { header, entries } = parsed
  const committed = await hasCommits(repo)
  let head: string | null = null
  if (committed) {
    const out = await gitRaw(repo, ['rev-parse', '--short', 'HEAD'])
    head = typeof out === 'string' ? out.trim() : null
  }
  const detached = header.head === '(detached)'
  const result: RepoStatus = {
    branch: detached ? null : (header.head ?? null),
    detached,
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
  if (header.upstream) result.upstream = { name: header.upstream, ahead: header.ahead, behind: header.behind }

  for (const file of entries) {
    if (file.kind === 'ignored') continue
    const rel = toProjectPath(repo, file.path)
    if (rel === undefined) continue
    if (repo.isDenied(rel.replace(/\/$/, ''))) {
      result.hidden++
      if (KINDS[file.index] || file.kind === 'conflicted') result.hiddenStaged++
      continue
    }
    if (file.kind === 'conflicted') {
      result.conflicted.push(rel)
      continue
    }
    if (file.kind === 'untracked') {
      result.untracked.push(rel)
      continue
    }
    const from = file.from !== undefined ? toProjectPath(repo, file.from) : undefined
    const staged = KINDS[file.index]
    if (staged) result.staged.push(from ? { path: rel, status: staged, from } : { path: rel, status: staged })
    const unstaged = KINDS[file.workTree]
    if (unstaged) result.unstaged.push({ path: rel, status: unstaged })
  }
  return { ok: true, ...result }
}

export function isClean(status: RepoStatus): boolean {
  return (
    status.staged.length === 0 &&
    status.unstaged.length === 0 &&
    status.untracked.length === 0 &&
    status.conflicted.length === 0
  )
}
