import fs from 'node:fs/promises'
import type { Sandbox } from '../containment/types'
import type { Outcome } from '../tools/types'
import {
  capText,
  commitExists,
  filteredDiff,
  gitRaw,
  hasCommits,
  openRepo,
  refProblem,
  type DiffFile,
  type GitRepo,
} from '../tools/git-repo'
import { readStatus } from '../tools/git-status'
import { resolvePath } from '../tools/files'

/*
 * What `stepwise review [TARGET]` reviews: a file, a folder, `git:REF` (one commit),
 * `git:A..B` (a range), or nothing (the uncommitted changes against HEAD), turned
 * into the scope the task text describes. Errors are for the user (bad usage).
 */

export type ScopeKind = 'changes' | 'commit' | 'range' | 'file' | 'folder'

export interface ReviewScope {
  kind: ScopeKind
  /** What is reviewed, in words: "the uncommitted changes", "commit 1a2b3c4 (Fix x)". */
  label: string
  /** Files in scope, project-relative, sorted. */
  files: string[]
  /** Per-file line counts when the scope is a diff. */
  stats?: DiffFile[]
  /** The diff under review (denied files left out), cut for the prompt. */
  diff?: string
  diffTruncated?: string
  /** How the model can see the whole change itself. */
  howToSee: string
  /** Line numbers of findings can be checked against the working tree. */
  linesMatchWorkingTree: boolean
}

export type TargetResult = Outcome<ReviewScope>

/** Most diff lines and bytes put in the task; the rest is one tool call away. */
const PROMPT_DIFF_LINES = 800
const PROMPT_DIFF_BYTES = 64 * 1024
/** Most files listed from a folder. */
const FOLDER_FILES_MAX = 5000

const TARGET_FORMS =
  'TARGET is a file, a folder, git:REF (one commit), git:A..B (a range), or nothing (the uncommitted changes)'

export async function resolveTarget(sandbox: Sandbox, target: string | undefined): Promise<TargetResult> {
  const spec = target?.trim() ?? ''
  if (spec === '') return uncommittedChanges(sandbox)
  if (spec.startsWith('git:')) return gitTarget(sandbox, spec.slice(4).trim())
  return pathTarget(sandbox, spec)
}

async function repoFor(sandbox: Sandbox, what: string): Promise<Outcome<GitRepo>> {
  const repo = await openRepo({ root: sandbox.root, isDenied: (rel) => sandbox.isDenied(rel) })
  if (!repo.ok)
    return {
      ok: false,
      error: `${what} needs a git repository, and ${sandbox.root} is not one. Name a file or folder to review instead (${TARGET_FORMS}).`,
    }
  return repo
}

function withDiff(scope: Omit<ReviewScope, 'diff' | 'diffTruncated'>, diff: string): TargetResult {
  const capped = capText(diff, PROMPT_DIFF_BYTES, PROMPT_DIFF_LINES)
  return {
    ok: true,
    ...scope,
    diff: capped.text,
    ...(capped.truncated ? { diffTruncated: capped.truncated } : {}),
  }
}

async function uncommittedChanges(sandbox: Sandbox): Promise<TargetResult> {
  const repo = await repoFor(sandbox, 'Reviewing the uncommitted changes (no TARGET)')
  if (!repo.ok) return repo
  const committed = await hasCommits(repo)
  // Before the first commit everything staged is new: compare the index with the empty tree.
  const diff = await filteredDiff(
    repo,
    { command: 'diff', revArgs: committed ? ['HEAD'] : ['--cached'] },
    sandbox.denyPatterns,
  )
  if (!diff.ok) return { ok: false, error: diff.error }
  const status = await readStatus(repo, { allUntracked: true })
  if (!status.ok) return { ok: false, error: status.error }
  const files = new Set([...diff.files.map((f) => f.path), ...status.untracked])
  return withDiff(
    {
      kind: 'changes',
      label: 'the uncommitted changes (working tree against HEAD, plus untracked files)',
      files: [...files].sort(),
      stats: diff.files,
      howToSee: committed
        ? 'git_diff with ref "HEAD" shows the whole change; untracked files are new: read them with read_file.'
        : 'The repository has no commits yet: every file listed is new; read them with read_file.',
      linesMatchWorkingTree: true,
    },
    diff.diff,
  )
}

async function gitTarget(sandbox: Sandbox, ref: string): Promise<TargetResult> {
  const isRange = ref.includes('..')
  const problem = refProblem(ref, { allowRange: true })
  if (problem) return { ok: false, error: `bad target "git:${ref}": ${problem}` }
  const repo = await repoFor(sandbox, `git:${ref}`)
  if (!repo.ok) return repo
  if (!(await commitExists(repo, ref)))
    return {
      ok: false,
      error: `unknown revision in "git:${ref}": ${isRange ? 'both ends of a range must be commits' : 'it is not a commit'} in this repository (see git log).`,
    }
  if (isRange) {
    const diff = await filteredDiff(repo, { command: 'diff', revArgs: [ref] }, sandbox.denyPatterns)
    if (!diff.ok) return { ok: false, error: diff.error }
    const end = ref.split(/\.\.\.?/)[1] || 'HEAD'
    return withDiff(
      {
        kind: 'range',
        label: `the commits ${ref}`,
        files: diff.files.map((f) => f.path),
        stats: diff.files,
        howToSee: `git_diff with ref "${ref}" shows the whole change; git_log lists the commits; git_show "${end}:path" shows a file as of the range's end (the working tree may differ).`,
        linesMatchWorkingTree: false,
      },
      diff.diff,
    )
  }
  const meta = await gitRaw(repo, ['show', '-s', '--format=%h%x1f%s', `${ref}^{commit}`])
  const [short, subject] = typeof meta === 'string' ? meta.trim().split('\x1f') : [ref, '']
  const diff = await filteredDiff(
    repo,
    { command: 'show', revArgs: [`${ref}^{commit}`] },
    sandbox.denyPatterns,
  )
  if (!diff.ok) return { ok: false, error: diff.error }
  return withDiff(
    {
      kind: 'commit',
      label: `commit ${short}${subject ? ` ("${subject}")` : ''}`,
      files: diff.files.map((f) => f.path),
      stats: diff.files,
      howToSee: `git_show with ref "${short}" shows the commit; git_show "${short}:path" shows a file as of that commit (the working tree may differ).`,
      linesMatchWorkingTree: false,
    },
    diff.diff,
  )
}

async function pathTarget(sandbox: Sandbox, spec: string): Promise<TargetResult> {
  const resolved = resolvePath({ sandbox }, spec)
  if (!resolved.ok) return { ok: false, error: `cannot review "${spec}": ${resolved.error}` }
  let isDir: boolean
  try {
    isDir = (await fs.stat(resolved.abs)).isDirectory()
  } catch {
    return {
      ok: false,
      error: `"${spec}" does not exist in ${sandbox.root}. ${TARGET_FORMS}${looksLikeRef(spec) ? `; a commit is written git:${spec}` : ''}.`,
    }
  }
  if (!isDir)
    return {
      ok: true,
      kind: 'file',
      label: `the file ${resolved.rel}`,
      files: [resolved.rel],
      howToSee: 'Read it with read_file.',
      linesMatchWorkingTree: true,
    }
  const prefix = resolved.rel === '.' ? undefined : resolved.rel
  const { files, truncated } = await sandbox.listFiles({ prefix, limit: FOLDER_FILES_MAX })
  return {
    ok: true,
    kind: 'folder',
    label: prefix ? `the folder ${prefix}/` : 'the whole project',
    files,
    howToSee: `${truncated ? `The folder holds more than ${FOLDER_FILES_MAX} files; ` : ''}list_files${prefix ? ` with prefix "${prefix}"` : ''} and read_file show them.`,
    linesMatchWorkingTree: true,
  }
}

/** A branch-like word (`main`, `HEAD~1`) rather than a file name: worth suggesting `git:`. */
function looksLikeRef(spec: string): boolean {
  return refProblem(spec, { allowRange: true }) === undefined && !/\.\w+$/.test(spec) && !spec.includes('/')
}
