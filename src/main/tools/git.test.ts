import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { gitCommitTool, gitDiffTool, gitLogTool, gitShowTool, gitStatusTool } from './git'
import { NOT_A_REPO, denyPathspecs, dropDeniedSections } from './git-repo'
import { readFileTool } from './read'
import { errorOf, git, makeContext, makeProject, okResult, repoWith, writeFiles } from './test-support'
import type { ToolContext } from './types'

const SECRET = 'sk-live-SECRET-123'

async function planOf(ctx: ToolContext, input: unknown) {
  const plan = await gitCommitTool.plan(gitCommitTool.input.parse(input), ctx)
  if (!plan.ok) throw new Error(`expected a plan, got ${plan.error}`)
  return plan
}

const noIO = { onOutput: () => {} }

describe('git tools outside a repository', () => {
  it('answers every git tool with the not-a-repository error while the other tools keep working', async () => {
    const root = makeProject({ 'a.txt': 'hello\n' })
    const ctx = await makeContext(root)
    expect(await gitStatusTool.run({}, ctx)).toEqual({ ok: false, error: NOT_A_REPO })
    expect(await gitDiffTool.run({}, ctx)).toEqual({ ok: false, error: NOT_A_REPO })
    expect(await gitLogTool.run({}, ctx)).toEqual({ ok: false, error: NOT_A_REPO })
    expect(await gitShowTool.run({ ref: 'HEAD' }, ctx)).toEqual({ ok: false, error: NOT_A_REPO })
    expect(await gitCommitTool.plan({ message: 'x' }, ctx)).toEqual({ ok: false, error: NOT_A_REPO })
    expect(okResult(await readFileTool.run({ path: 'a.txt' }, ctx)).content).toBe('1\thello')
  })
})

describe('git_status', () => {
  it('lists staged, unstaged and untracked changes and hides denied files', async () => {
    const root = repoWith({ 'a.txt': 'a\n', 'b.txt': 'b\n', '.env': `KEY=${SECRET}\n` })
    writeFiles(root, { 'a.txt': 'a2\n', 'new/n.txt': 'n\n', '.env': 'KEY=other\n', 'c.txt': 'c\n' })
    git(root, 'add', 'c.txt')
    fs.rmSync(path.join(root, 'b.txt'))
    const ctx = await makeContext(root)
    const result = await gitStatusTool.run({}, ctx)
    expect(result).toEqual({
      ok: true,
      branch: 'main',
      detached: false,
      head: git(root, 'rev-parse', '--short', 'HEAD').trim(),
      conflicted: [],
      staged: [{ path: 'c.txt', status: 'added' }],
      unstaged: [
        { path: 'a.txt', status: 'modified' },
        { path: 'b.txt', status: 'deleted' },
      ],
      untracked: ['new/'],
      clean: false,
      hidden_denied: '1 changed path(s) are denied (.env, keys, …) and not shown.',
    })
  })

  it('reports a merge in progress with its conflicted files', async () => {
    const root = repoWith({ 'a.txt': 'base\n', 'b.txt': 'b\n' })
    git(root, 'checkout', '-q', '-b', 'other')
    writeFiles(root, { 'a.txt': 'theirs\n' })
    git(root, 'commit', '-qam', 'theirs')
    git(root, 'checkout', '-q', 'main')
    writeFiles(root, { 'a.txt': 'ours\n' })
    git(root, 'commit', '-qam', 'ours')
    expect(() => git(root, 'merge', 'other')).toThrow()
    const ctx = await makeContext(root)
    const result = okResult(await gitStatusTool.run({}, ctx))
    expect(result).toMatchObject({
      branch: 'main',
      detached: false,
      in_progress: 'merge',
      conflicted: ['a.txt'],
      staged: [],
      unstaged: [],
      clean: false,
    })
    expect(result.note).toBe(
      'A merge is in progress with 1 conflicted file(s): resolve the conflict markers in each, then conclude with git_commit (without files).',
    )
    // A commit is refused until the conflict is resolved, then concludes the merge.
    expect(errorOf(await gitCommitTool.plan({ message: 'merge' }, ctx))).toBe(
      'These files still have merge conflicts: a.txt. Resolve the conflict markers in each first, then commit.',
    )
    writeFiles(root, { 'a.txt': 'ours and theirs\n' })
    git(root, 'add', 'a.txt')
    const plan = await planOf(ctx, { message: 'Merge other' })
    expect(plan.verdict).toBe('ask')
    expect(plan.data).toEqual({ mode: 'index', message: 'Merge other', files: ['a.txt'], merge: true })
    okResult(await gitCommitTool.execute(plan, ctx, noIO))
    expect(git(root, 'log', '-1', '--format=%P').trim().split(' ')).toHaveLength(2)
    expect(okResult(await gitStatusTool.run({}, ctx)).in_progress).toBeUndefined()
  })

  it('says when HEAD is detached', async () => {
    const root = repoWith({ 'a.txt': 'a\n' })
    writeFiles(root, { 'a.txt': 'b\n' })
    git(root, 'commit', '-qam', 'second')
    git(root, 'checkout', '-q', '--detach', 'HEAD~1')
    const head = git(root, 'rev-parse', '--short', 'HEAD').trim()
    const result = await gitStatusTool.run({}, await makeContext(root))
    expect(result).toEqual({
      ok: true,
      branch: null,
      detached: true,
      head,
      conflicted: [],
      staged: [],
      unstaged: [],
      untracked: [],
      clean: true,
      note: `HEAD is detached at ${head} (no branch is checked out); a commit made now belongs to no branch.`,
    })
  })

  it('works in an empty repository, as do log, diff and show', async () => {
    const root = makeProject({ 'a.txt': 'a\n' })
    git(root, 'init', '-q', '-b', 'main')
    const ctx = await makeContext(root)
    expect(await gitStatusTool.run({}, ctx)).toEqual({
      ok: true,
      branch: 'main',
      detached: false,
      head: null,
      conflicted: [],
      staged: [],
      unstaged: [],
      untracked: ['a.txt'],
      clean: false,
      note: 'The repository has no commits yet.',
    })
    expect(await gitLogTool.run({}, ctx)).toEqual({
      ok: true,
      commits: [],
      count: 0,
      note: 'The repository has no commits yet.',
    })
    git(root, 'add', 'a.txt')
    const staged = okResult(await gitDiffTool.run({ staged: true }, ctx))
    expect(staged.files).toEqual([{ path: 'a.txt', additions: 1, deletions: 0 }])
    expect(errorOf(await gitShowTool.run({ ref: 'HEAD' }, ctx))).toBe(
      '"HEAD" is not a revision in this repository. Use git_log to see recent commits, or a branch name from git_status.',
    )
  })

  it('shows only the project when the project is a folder inside a larger repository', async () => {
    const top = repoWith({ 'app/a.txt': 'a\n', 'other/o.txt': 'o\n' })
    writeFiles(top, { 'app/a.txt': 'a2\n', 'other/o.txt': 'o2\n' })
    const ctx = await makeContext(path.join(top, 'app'))
    const status = okResult(await gitStatusTool.run({}, ctx))
    expect(status.unstaged).toEqual([{ path: 'a.txt', status: 'modified' }])
    const diff = okResult(await gitDiffTool.run({}, ctx))
    expect(diff.files).toEqual([{ path: 'a.txt', additions: 1, deletions: 1 }])
    expect(String(diff.diff)).not.toContain('o2')
  })
})

describe('git_diff', () => {
  async function twoCommits() {
    const root = repoWith({ 'a.txt': 'one\n', 'src/b.ts': 'export const b = 1\n' })
    writeFiles(root, { 'a.txt': 'one\ntwo\n' })
    git(root, 'commit', '-qam', 'second')
    return { root, ctx: await makeContext(root) }
  }

  it('shows unstaged, staged, against a ref and between commits, narrowed by path', async () => {
    const { root, ctx } = await twoCommits()
    writeFiles(root, { 'src/b.ts': 'export const b = 2\n' })
    const unstaged = okResult(await gitDiffTool.run({}, ctx))
    expect(unstaged.compared).toBe('unstaged changes (working tree vs index)')
    expect(unstaged.files).toEqual([{ path: 'src/b.ts', additions: 1, deletions: 1 }])
    expect(unstaged.diff).toBe(
      [
        'diff --git a/src/b.ts b/src/b.ts',
        `index ${git(root, 'rev-parse', '--short=7', 'HEAD:src/b.ts').trim()}..${git(root, 'hash-object', 'src/b.ts').trim().slice(0, 7)} 100644`,
        '--- a/src/b.ts',
        '+++ b/src/b.ts',
        '@@ -1 +1 @@',
        '-export const b = 1',
        '+export const b = 2',
      ].join('\n'),
    )
    expect(okResult(await gitDiffTool.run({ staged: true }, ctx))).toMatchObject({
      files: [],
      diff: '',
      note: 'No differences.',
    })
    git(root, 'add', 'src/b.ts')
    expect(okResult(await gitDiffTool.run({ staged: true }, ctx)).files).toEqual([
      { path: 'src/b.ts', additions: 1, deletions: 1 },
    ])
    const vsFirst = okResult(await gitDiffTool.run({ ref: 'HEAD~1' }, ctx))
    expect(vsFirst.compared).toBe('working tree vs HEAD~1')
    expect(vsFirst.files).toEqual([
      { path: 'a.txt', additions: 1, deletions: 0 },
      { path: 'src/b.ts', additions: 1, deletions: 1 },
    ])
    const range = okResult(await gitDiffTool.run({ ref: 'HEAD~1..HEAD' }, ctx))
    expect(range.compared).toBe('commits HEAD~1..HEAD')
    expect(range.files).toEqual([{ path: 'a.txt', additions: 1, deletions: 0 }])
    const narrowed = okResult(await gitDiffTool.run({ ref: 'HEAD~1', path: 'src' }, ctx))
    expect(narrowed.files).toEqual([{ path: 'src/b.ts', additions: 1, deletions: 1 }])
  })

  it('refuses unknown revisions, option-like refs and paths outside the project', async () => {
    const { ctx } = await twoCommits()
    expect(errorOf(await gitDiffTool.run({ ref: 'nope' }, ctx))).toBe(
      '"nope" is not a revision in this repository. Use git_log to see recent commits, or a branch name from git_status.',
    )
    expect(errorOf(await gitDiffTool.run({ ref: '--output=/tmp/x' }, ctx))).toBe(
      '"--output=/tmp/x" is not a revision (it starts with "-").',
    )
    expect(errorOf(await gitDiffTool.run({ path: '../x' }, ctx))).toMatch(/outside|project/)
  })

  it('cuts long diffs with the explicit truncation marker', async () => {
    const root = repoWith({ 'big.txt': '' })
    writeFiles(root, { 'big.txt': Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n') + '\n' })
    const result = okResult(await gitDiffTool.run({}, await makeContext(root)))
    // 3000 added lines + 5 header lines, of which the first 2000 are shown.
    expect(result.truncated).toBe(
      "[TRUNCATED: showing first 2000 lines, 1005 more available] Pass path to see one file's whole diff.",
    )
    expect(String(result.diff).split('\n')).toHaveLength(2000)
  })
})

describe('denied files never leak', () => {
  async function secretRepo() {
    const root = repoWith({
      'a.txt': 'a\n',
      '.env': `KEY=${SECRET}\n`,
      'config/.env.local': `LOCAL=${SECRET}\n`,
      'certs/server.pem': `-----BEGIN ${SECRET}-----\n`,
      id_rsa: `${SECRET}\n`,
    })
    writeFiles(root, {
      'a.txt': 'a2\n',
      '.env': `KEY=${SECRET}-2\n`,
      'config/.env.local': `LOCAL=${SECRET}-2\n`,
      'certs/server.pem': `-----BEGIN ${SECRET}-2-----\n`,
      id_rsa: `${SECRET}-2\n`,
    })
    return { root, ctx: await makeContext(root) }
  }

  it('in diffs of the working tree, the index, a ref and a range', async () => {
    const { root, ctx } = await secretRepo()
    for (const input of [{}, { ref: 'HEAD' }, { path: '.' }]) {
      const result = okResult(await gitDiffTool.run(input, ctx))
      expect(JSON.stringify(result)).not.toContain(SECRET)
      expect(result.files).toEqual([{ path: 'a.txt', additions: 1, deletions: 1 }])
      expect(result.hidden_denied).toBe('4 denied file(s) (.env, keys, …) left out.')
    }
    git(root, 'add', '-A')
    git(root, 'commit', '-qm', 'rotate keys')
    for (const input of [{ staged: false }, { ref: 'HEAD~1..HEAD' }, { ref: 'HEAD~1' }]) {
      const result = okResult(await gitDiffTool.run(input, ctx))
      expect(JSON.stringify(result)).not.toContain(SECRET)
    }
    expect(errorOf(await gitDiffTool.run({ path: '.env' }, ctx))).toMatch(/\.env/)
  })

  it('in shows of a commit, a file at a commit, a blob by hash, and a rename', async () => {
    const { root, ctx } = await secretRepo()
    git(root, 'add', '-A')
    git(root, 'commit', '-qm', 'rotate keys')
    const show = okResult(await gitShowTool.run({ ref: 'HEAD' }, ctx))
    expect(JSON.stringify(show)).not.toContain(SECRET)
    expect(show.files).toEqual([{ path: 'a.txt', additions: 1, deletions: 1 }])
    expect(show.hidden_denied).toBe('4 denied file(s) (.env, keys, …) left out.')
    expect(JSON.stringify(await gitShowTool.run({ ref: 'HEAD:.env' }, ctx))).not.toContain(SECRET)
    expect(errorOf(await gitShowTool.run({ ref: 'HEAD~1:certs/server.pem' }, ctx))).toMatch(/server\.pem/)
    const blob = git(root, 'rev-parse', 'HEAD:.env').trim()
    expect(errorOf(await gitShowTool.run({ ref: blob }, ctx))).toBe(
      `"${blob}" is a file object; read files at a commit with "REF:path" (e.g. "HEAD:src/app.ts").`,
    )
    // A rename out of .env: its old lines would show as a deletion; the deletion is hidden, the new file shown.
    git(root, 'mv', '.env', 'settings.txt')
    git(root, 'commit', '-qm', 'rename')
    const renamed = okResult(await gitShowTool.run({ ref: 'HEAD' }, ctx))
    expect(renamed.files).toEqual([{ path: 'settings.txt', additions: 1, deletions: 0 }])
    expect(String(renamed.diff)).not.toContain('.env')
  })

  it('in status and commits', async () => {
    const { root, ctx } = await secretRepo()
    const status = okResult(await gitStatusTool.run({}, ctx))
    expect(status.unstaged).toEqual([{ path: 'a.txt', status: 'modified' }])
    expect(errorOf(await gitCommitTool.plan({ message: 'x', files: ['.env'] }, ctx))).toMatch(/\.env/)
    expect(errorOf(await gitCommitTool.plan({ message: 'x', files: ['config'] }, ctx))).toBe(
      'The files you named include 1 denied file(s) (.env, keys, …), which are never committed. Name the files to commit one by one.',
    )
    git(root, 'add', '.env')
    expect(errorOf(await gitCommitTool.plan({ message: 'x' }, ctx))).toBe(
      '1 denied file(s) (.env, keys, …) are staged and would be committed. Name the files to commit in files instead, or ask the user to unstage them.',
    )
    // Named files commit without the staged .env.
    const plan = await planOf(ctx, { message: 'Update a', files: ['a.txt'] })
    okResult(await gitCommitTool.execute(plan, ctx, noIO))
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('a.txt')
  })

  it('drops denied sections whatever the header looks like', () => {
    const text = [
      'diff --git a/ok file.txt b/ok file.txt',
      '+fine',
      'diff --git "a/.env" "b/.env"',
      `+${SECRET}`,
      'diff --cc keys/id_rsa',
      `+${SECRET}`,
      'diff --git a/x.ts b/x.ts',
      '+x',
    ].join('\n')
    const isDenied = (p: string) => p === '.env' || p.endsWith('id_rsa')
    expect(dropDeniedSections(text, isDenied)).toEqual({
      diff: ['diff --git a/ok file.txt b/ok file.txt', '+fine', 'diff --git a/x.ts b/x.ts', '+x'].join('\n'),
      hidden: 2,
    })
    expect(denyPathspecs(['.git/', '.env', 'build/out/', '!keep'])).toEqual([
      ':(exclude,glob)**/.git/**',
      ':(exclude,glob)**/.env',
      ':(exclude,glob)**/.env/**',
      ':(exclude,glob)build/out/**',
    ])
  })
})

describe('git_log and git_show', () => {
  it('lists commits newest first with an explicit cut', async () => {
    const root = repoWith({ 'a.txt': '0\n' })
    for (let i = 1; i <= 3; i++) {
      writeFiles(root, { 'a.txt': `${i}\n` })
      git(root, 'commit', '-qam', `change ${i}`)
    }
    const ctx = await makeContext(root)
    const result = okResult(await gitLogTool.run({ limit: 2 }, ctx))
    const hashes = git(root, 'log', '--format=%H').trim().split('\n')
    expect(result).toEqual({
      ok: true,
      commits: [
        {
          hash: hashes[0],
          short: hashes[0].slice(0, 7),
          author: 'Dev',
          date: git(root, 'log', '-1', '--format=%aI', hashes[0]).trim(),
          subject: 'change 3',
        },
        {
          hash: hashes[1],
          short: hashes[1].slice(0, 7),
          author: 'Dev',
          date: git(root, 'log', '-1', '--format=%aI', hashes[1]).trim(),
          subject: 'change 2',
        },
      ],
      count: 2,
      truncated: '[TRUNCATED: first 2 items] Raise limit (max 200) to see older commits.',
    })
    expect(okResult(await gitLogTool.run({}, ctx)).commits).toHaveLength(4)
  })

  it('shows a commit and a file as it was at a commit', async () => {
    const root = repoWith({ 'a.txt': 'one\n' })
    writeFiles(root, { 'a.txt': 'one\ntwo\n' })
    git(root, 'commit', '-qam', 'Add two\n\nBecause one is lonely.')
    const ctx = await makeContext(root)
    const head = git(root, 'rev-parse', 'HEAD').trim()
    const show = okResult(await gitShowTool.run({ ref: 'HEAD' }, ctx))
    expect(show).toMatchObject({
      hash: head,
      parents: [git(root, 'rev-parse', 'HEAD~1').trim()],
      author: 'Dev <dev@example.com>',
      message: 'Add two\n\nBecause one is lonely.',
      files: [{ path: 'a.txt', additions: 1, deletions: 0 }],
    })
    expect(String(show.diff)).toContain('+two')
    expect(await gitShowTool.run({ ref: 'HEAD~1:a.txt' }, ctx)).toEqual({
      ok: true,
      ref: 'HEAD~1',
      path: 'a.txt',
      total_lines: 1,
      start_line: 1,
      end_line: 1,
      content: '1\tone',
    })
    expect(errorOf(await gitShowTool.run({ ref: 'HEAD:missing.txt' }, ctx))).toBe(
      '"missing.txt" does not exist at HEAD (or HEAD is not a revision). Use git_show "HEAD" to see which files that commit changed.',
    )
    expect(errorOf(await gitShowTool.run({ ref: 'HEAD~1..HEAD' }, ctx))).toMatch(/is a range/)
  })
})
