import { describe, expect, it } from 'vitest'
import { gitCommitTool, gitTools } from './git'
import { errorOf, git, makeContext, okResult, repoWith, writeFiles } from './test-support'
import type { ToolContext } from './types'

/* git_commit against real repositories; merge and denied-file cases are in git.test.ts. */

async function planOf(ctx: ToolContext, input: unknown) {
  const plan = await gitCommitTool.plan(gitCommitTool.input.parse(input), ctx)
  if (!plan.ok) throw new Error(`expected a plan, got ${plan.error}`)
  const { ok: _ok, ...fields } = plan
  return fields
}

const noIO = { onOutput: () => {} }

describe('git_commit', () => {
  it('plans with verdict ask, then commits exactly the named files (new ones included)', async () => {
    const root = repoWith({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    writeFiles(root, { 'a.txt': 'a2\n', 'b.txt': 'b2\n', 'src/new.ts': 'export {}\n' })
    const ctx = await makeContext(root)
    const plan = await planOf(ctx, { message: 'Add new module\n\nDetails.', files: ['a.txt', 'src'] })
    expect(plan).toEqual({
      summary: 'git commit "Add new module" — 2 file(s): a.txt, src/new.ts',
      command: {
        command: "git add -A -- a.txt src/new.ts && git commit -m 'Add new module' -- a.txt src/new.ts",
        cwd: ctx.root,
      },
      verdict: 'ask',
      reason: 'A commit changes the repository history.',
      data: {
        mode: 'paths',
        message: 'Add new module\n\nDetails.',
        files: ['a.txt', 'src/new.ts'],
        merge: false,
      },
    })
    const output: string[] = []
    const result = okResult(
      await gitCommitTool.execute(plan, ctx, { onOutput: (_stream, text) => output.push(text) }),
    )
    const head = git(root, 'rev-parse', 'HEAD').trim()
    expect(result).toEqual({
      ok: true,
      commit: head,
      branch: 'main',
      files: ['a.txt', 'src/new.ts'],
      subject: 'Add new module',
      note: 'Committed locally. Nothing was pushed.',
    })
    expect(output.join('')).toContain('Add new module')
    expect(git(root, 'log', '-1', '--format=%B').trim()).toBe('Add new module\n\nDetails.')
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('a.txt\nsrc/new.ts')
    // b.txt was not named: still changed, not committed.
    expect(git(root, 'status', '--porcelain').trim()).toBe('M b.txt')
  })

  it('without files commits the index, or every changed tracked file when nothing is staged', async () => {
    const root = repoWith({ 'a.txt': 'a\n', 'b.txt': 'b\n' })
    const ctx = await makeContext(root)
    expect(errorOf(await gitCommitTool.plan({ message: 'x' }, ctx))).toBe(
      'Nothing to commit: no staged or changed tracked files.',
    )
    writeFiles(root, { 'a.txt': 'a2\n', 'b.txt': 'b2\n', 'u.txt': 'u\n' })
    git(root, 'add', 'a.txt')
    const indexPlan = await planOf(ctx, { message: 'Only a' })
    expect(indexPlan.data).toEqual({ mode: 'index', message: 'Only a', files: ['a.txt'], merge: false })
    expect(indexPlan.command?.command).toBe("git commit -m 'Only a'")
    // The index changes between plan and execution: nothing is committed.
    git(root, 'add', 'b.txt')
    expect(errorOf(await gitCommitTool.execute(indexPlan, ctx, noIO))).toMatch(/staged files changed/)
    git(root, 'reset', '-q')
    const allPlan = await planOf(ctx, { message: 'All tracked' })
    expect(allPlan.data).toEqual({
      mode: 'paths',
      message: 'All tracked',
      files: ['a.txt', 'b.txt'],
      merge: false,
    })
    okResult(await gitCommitTool.execute(allPlan, ctx, noIO))
    expect(git(root, 'status', '--porcelain').trim()).toBe('?? u.txt')
  })

  it('rejects named files without changes and a blank message', async () => {
    const root = repoWith({ 'a.txt': 'a\n' })
    const ctx = await makeContext(root)
    expect(errorOf(await gitCommitTool.plan({ message: 'x', files: ['a.txt'] }, ctx))).toBe(
      'Nothing to commit in a.txt: no changes there. Use git_status to see what changed.',
    )
    expect(errorOf(await gitCommitTool.plan({ message: '   ', files: ['a.txt'] }, ctx))).toBe(
      'The commit message is empty; write a short subject line.',
    )
  })

  it('is the only mutating git tool', () => {
    expect(gitTools.map((t) => `${t.name}:${t.mutating}`)).toEqual([
      'git_status:false',
      'git_diff:false',
      'git_log:false',
      'git_show:false',
      'git_commit:true',
    ])
  })
})
