import { z } from 'zod'
import { COMMIT_TIMEOUT_MS, errorText, gitRaw, openRepo, type GitRepo } from './git-repo'
import { readStatus } from './git-status'
import type { ActionPlan, ActionTool, Outcome, ToolContext, ToolResult } from './types'
import { pushAll } from '../../shared/arrays'
import { resolvePath } from './files'

/*
 * git_commit: a mutation of the repository, so it is an ActionTool whose plan the
 * user approves (verdict `ask`). What it commits:
 *   - `files` given: exactly those files' current content (new, changed or deleted;
 *     a folder means the changed files in it), staged and committed; anything else
 *     that was staged stays staged and out of this commit.
 *   - no `files`, something staged: the index as it is (what `git commit` would do).
 *   - no `files`, nothing staged: every changed tracked file (like `git commit -a`);
 *     new files are only committed when named in `files`.
 * Denied files (.env, keys, …) are never committed; it never pushes.
 */

type CommitMode = 'index' | 'paths'

interface CommitData {
  mode: CommitMode
  message: string
  files: string[]
  /** A merge in progress: the commit concludes it, so it records the whole index. */
  merge: boolean
}

const filesArg = z
  .preprocess(
    (v) => (v === null ? undefined : typeof v === 'string' ? (v.trim() ? [v] : undefined) : v),
    z.array(z.string().min(1)).optional(),
  )
  .describe(
    'Files (or folders) to commit, project-relative. Omit to commit what is staged, or, when nothing is staged, every changed tracked file. New files must be named here.',
  )

const commitInput = z.object({
  message: z
    .string()
    .min(1)
    .describe('The commit message: a short subject line, then optionally a blank line and details.'),
  files: filesArg,
})

const lit = (p: string) => `:(literal)${p}`

/**
 * The repository's hooks run on an approved commit only when the user's command
 * settings say `gitHooks: true`; planning never runs them.
 */
export function gitHooksAllowed(ctx: ToolContext): boolean {
  return ctx.commands?.gitHooks === true
}

function repoFor(
  ctx: ToolContext,
  opts: { timeoutMs?: number; hooks?: boolean } = {},
): Promise<Outcome<GitRepo>> {
  return openRepo({
    root: ctx.root,
    isDenied: (rel) => ctx.sandbox.isDenied(rel),
    signal: ctx.signal,
    timeoutMs: opts.timeoutMs,
    hooks: opts.hooks,
  })
}

function quote(arg: string): string {
  return /^[\w./:@%+=,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`
}

/** The commands `execute` runs, as one line the user approves. */
function commandLine(data: CommitData): string {
  const commit = ['git', 'commit', '-m', data.message.split('\n')[0]]
  if (data.mode === 'index') return commit.map(quote).join(' ')
  const files = data.files.map(quote).join(' ')
  return `git add -A -- ${files} && ${commit.map(quote).join(' ')}${data.merge ? '' : ` -- ${files}`}`
}

function summarize(data: CommitData): string {
  const subject = data.message.split('\n')[0]
  const shown = data.files.slice(0, 5).join(', ')
  const more = data.files.length > 5 ? `, +${data.files.length - 5} more` : ''
  const what =
    data.files.length === 0 ? 'concluding the merge' : `${data.files.length} file(s): ${shown}${more}`
  return `git commit "${subject}" — ${what}`
}

/**
 * The changed files under the files and folders the model named, sorted; refused when a name
 * leaves the project or is the whole project, when a denied file (a folder may hold a .env) is
 * among them, or when nothing there changed.
 */
async function changedFilesNamed(
  ctx: ToolContext,
  repo: GitRepo,
  raw: readonly string[],
): Promise<Outcome<{ files: string[] }>> {
  const named: string[] = []
  for (const name of raw) {
    const file = resolvePath(ctx, name)
    if (!file.ok) return { ok: false, error: file.error }
    if (file.rel === '.')
      return {
        ok: false,
        error:
          'Name files or folders inside the project, not the whole project; omit files to commit every changed tracked file.',
      }
    named.push(file.rel)
  }
  // Expand folders to their changed files and check each one: a folder may hold a .env.
  const scoped = await readStatus(repo, { pathspecs: named.map(lit), allUntracked: true })
  if (!scoped.ok) return scoped
  if (scoped.hidden > 0)
    return {
      ok: false,
      error: `The files you named include ${scoped.hidden} denied file(s) (.env, keys, …), which are never committed. Name the files to commit one by one.`,
    }
  const changed = new Set<string>([
    ...scoped.staged.map((c) => c.path),
    ...scoped.unstaged.map((c) => c.path),
    ...scoped.untracked,
  ])
  if (changed.size === 0)
    return {
      ok: false,
      error: `Nothing to commit in ${named.join(', ')}: no changes there. Use git_status to see what changed.`,
    }
  return { ok: true, files: [...changed].sort() }
}

async function planCommit(
  input: z.infer<typeof commitInput>,
  ctx: ToolContext,
): Promise<Outcome<ActionPlan<CommitData>>> {
  const message = input.message.trim()
  if (!message) return { ok: false, error: 'The commit message is empty; write a short subject line.' }
  const repo = await repoFor(ctx)
  if (!repo.ok) return repo
  const status = await readStatus(repo)
  if (!status.ok) return status
  if (status.operation === 'rebase')
    return {
      ok: false,
      error:
        'A rebase is in progress; committing now would interfere with it. Ask the user to finish or abort the rebase.',
    }
  if (status.conflicted.length > 0)
    return {
      ok: false,
      error: `These files still have merge conflicts: ${status.conflicted.join(', ')}. Resolve the conflict markers in each first, then commit.`,
    }
  const merge = status.operation === 'merge'
  let data: CommitData
  if (input.files && input.files.length > 0) {
    const named = await changedFilesNamed(ctx, repo, input.files)
    if (!named.ok) return named
    data = { mode: 'paths', message, files: named.files, merge }
  } else if (status.staged.length > 0 || status.hiddenStaged > 0) {
    if (status.hiddenStaged > 0)
      return {
        ok: false,
        error: `${status.hiddenStaged} denied file(s) (.env, keys, …) are staged and would be committed. Name the files to commit in files instead, or ask the user to unstage them.`,
      }
    data = { mode: 'index', message, files: status.staged.map((c) => c.path).sort(), merge }
  } else if (status.unstaged.length > 0) {
    data = { mode: 'paths', message, files: status.unstaged.map((c) => c.path).sort(), merge }
  } else if (merge) {
    data = { mode: 'index', message, files: [], merge }
  } else {
    const untracked = status.untracked.length
    return {
      ok: false,
      error: `Nothing to commit: no staged or changed tracked files.${untracked ? ` ${untracked} untracked path(s) exist; name them in files to commit them.` : ''}`,
    }
  }
  return {
    ok: true,
    summary: summarize(data),
    command: { command: commandLine(data), cwd: ctx.root },
    verdict: 'ask',
    reason: 'A commit changes the repository history.',
    data,
  }
}

async function executeCommit(
  plan: ActionPlan<CommitData>,
  ctx: ToolContext,
  onOutput: (text: string) => void,
): Promise<ToolResult> {
  const data = plan.data
  const repo = await repoFor(ctx, { timeoutMs: COMMIT_TIMEOUT_MS, hooks: gitHooksAllowed(ctx) })
  if (!repo.ok) return repo
  if (data.mode === 'index') {
    // The user approved a list of files: commit nothing else, even if the index moved meanwhile.
    const status = await readStatus(repo)
    if (!status.ok) return status
    const now = status.staged.map((c) => c.path).sort()
    if (status.hiddenStaged > 0 || now.join('\0') !== data.files.join('\0'))
      return {
        ok: false,
        error:
          'The staged files changed since this commit was planned; nothing was committed. Check git_status and call git_commit again.',
      }
  } else {
    const added = await gitRaw(repo, ['add', '-A', '--', ...data.files.map(lit)])
    if (typeof added !== 'string') return added
  }
  const args = ['commit', '-m', data.message]
  if (data.mode === 'paths' && !data.merge) pushAll(args, ['--', ...data.files.map(lit)])
  let output: string
  try {
    output = await repo.git.raw(args)
  } catch (err) {
    const text = errorText(err)
    const staged = data.mode === 'paths' ? ' The files were staged (git add) but not committed.' : ''
    if (/tell me who you are|empty ident|unable to auto-detect email/i.test(text))
      return {
        ok: false,
        error: `git commit failed: no author identity is configured (user.name and user.email).${staged} Ask the user to configure git; the tools do not change git configuration.`,
      }
    return { ok: false, error: `git commit failed: ${text}${staged}` }
  }
  onOutput(output)
  const head = await gitRaw(repo, ['rev-parse', 'HEAD'])
  const branch = await gitRaw(repo, ['branch', '--show-current'])
  return {
    ok: true,
    commit: typeof head === 'string' ? head.trim() : null,
    branch: typeof branch === 'string' && branch.trim() ? branch.trim() : null,
    files: data.files,
    subject: data.message.split('\n')[0],
    note: 'Committed locally. Nothing was pushed.',
  }
}

export const gitCommitTool: ActionTool<typeof commitInput, CommitData> = {
  name: 'git_commit',
  family: 'git',
  mutating: true,
  description:
    'Commit changes to the local repository (never pushes); the user approves it first. With files: exactly those files (new ones included). Without: what is staged, or when nothing is staged every changed tracked file. Refuses denied files (.env, keys) and unresolved conflicts.',
  input: commitInput,
  plan: planCommit,
  execute: (plan, ctx, io) => executeCommit(plan, ctx, (text) => io.onOutput('stdout', text)),
}
