import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSandbox } from '../containment/sandbox'
import { git, makeProject, repoWith, writeFiles } from '../tools/test-support'
import { resolveTarget, type ReviewScope } from './target'
import { reviewTask } from './task'

async function scopeOf(root: string, target?: string): Promise<ReviewScope> {
  const scope = await resolveTarget(await createSandbox(root), target)
  if (!scope.ok) throw new Error(scope.error)
  const { ok: _ok, ...fields } = scope
  return fields
}

async function errorFor(root: string, target?: string): Promise<string> {
  const scope = await resolveTarget(await createSandbox(root), target)
  if (scope.ok) throw new Error(`expected an error, got ${JSON.stringify(scope)}`)
  return scope.error
}

describe('resolveTarget', () => {
  it('reviews the uncommitted changes by default: tracked changes and untracked files, no secrets', async () => {
    const root = repoWith({ 'a.ts': 'export const a = 1\n', 'b.ts': 'b\n', '.env': 'K=secret-1\n' })
    writeFiles(root, { 'a.ts': 'export const a = 2\n', 'new.ts': 'n\n', '.env': 'K=secret-2\n' })
    const scope = await scopeOf(root)
    expect(scope).toMatchObject({
      kind: 'changes',
      label: 'the uncommitted changes (working tree against HEAD, plus untracked files)',
      files: ['a.ts', 'new.ts'],
      stats: [{ path: 'a.ts', additions: 1, deletions: 1 }],
      linesMatchWorkingTree: true,
    })
    expect(scope.diff).toContain('+export const a = 2')
    expect(JSON.stringify(scope)).not.toContain('secret')
    expect(reviewTask(scope, 'naming')).toBe(
      [
        'Review the uncommitted changes (working tree against HEAD, plus untracked files).',
        'Focus: naming',
        'Files in scope (2):\n- a.ts (+1 -1)\n- new.ts',
        `The change under review:\n\`\`\`diff\n${scope.diff}\n\`\`\``,
        'git_diff with ref "HEAD" shows the whole change; untracked files are new: read them with read_file.',
        'Report each problem with report_finding, then end with a short summary.',
      ].join('\n\n'),
    )
  })

  it('has nothing in scope on a clean tree, and needs a repository without a target', async () => {
    expect((await scopeOf(repoWith({ 'a.ts': 'a\n' }))).files).toEqual([])
    const plain = makeProject({ 'a.ts': 'a\n' })
    expect(await errorFor(plain)).toBe(
      `Reviewing the uncommitted changes (no TARGET) needs a git repository, and ${fs.realpathSync(plain)} is not one. Name a file or folder to review instead (TARGET is a file, a folder, git:REF (one commit), git:A..B (a range), or nothing (the uncommitted changes)).`,
    )
  })

  it('reviews one commit or a range of commits', async () => {
    const root = repoWith({ 'a.ts': 'one\n', 'b.ts': 'b\n' })
    writeFiles(root, { 'a.ts': 'one\ntwo\n' })
    git(root, 'commit', '-qam', 'Add two')
    writeFiles(root, { 'b.ts': 'b2\n' })
    git(root, 'commit', '-qam', 'Change b')
    const short = git(root, 'rev-parse', '--short', 'HEAD~1').trim()
    const commit = await scopeOf(root, 'git:HEAD~1')
    expect(commit).toMatchObject({
      kind: 'commit',
      label: `commit ${short} ("Add two")`,
      files: ['a.ts'],
      linesMatchWorkingTree: false,
    })
    expect(commit.diff).toContain('+two')
    const range = await scopeOf(root, 'git:HEAD~2..HEAD')
    expect(range).toMatchObject({ kind: 'range', label: 'the commits HEAD~2..HEAD', files: ['a.ts', 'b.ts'] })
  })

  it('reviews a file or a folder', async () => {
    const root = repoWith({ 'src/a.ts': 'a\n', 'src/lib/b.ts': 'b\n', 'c.ts': 'c\n', 'src/.env': 'x\n' })
    expect(await scopeOf(root, 'src/a.ts')).toEqual({
      kind: 'file',
      label: 'the file src/a.ts',
      files: ['src/a.ts'],
      howToSee: 'Read it with read_file.',
      linesMatchWorkingTree: true,
    })
    expect(await scopeOf(root, 'src')).toMatchObject({
      kind: 'folder',
      label: 'the folder src/',
      files: ['src/a.ts', 'src/lib/b.ts'],
    })
    expect((await scopeOf(root, '.')).label).toBe('the whole project')
  })

  it('explains bad targets', async () => {
    const root = repoWith({ 'a.ts': 'a\n' })
    expect(await errorFor(root, 'git:nope')).toBe(
      'unknown revision in "git:nope": it is not a commit in this repository (see git log).',
    )
    expect(await errorFor(root, 'git:HEAD..nope')).toBe(
      'unknown revision in "git:HEAD..nope": both ends of a range must be commits in this repository (see git log).',
    )
    expect(await errorFor(root, 'git:--output=x')).toBe(
      'bad target "git:--output=x": "--output=x" is not a revision (it starts with "-").',
    )
    expect(await errorFor(root, 'missing.ts')).toBe(
      `"missing.ts" does not exist in ${fs.realpathSync(root)}. TARGET is a file, a folder, git:REF (one commit), git:A..B (a range), or nothing (the uncommitted changes).`,
    )
    expect(await errorFor(root, 'HEAD~1')).toMatch(/; a commit is written git:HEAD~1\.$/)
    expect(await errorFor(root, '.env')).toMatch(/^cannot review "\.env": /)
    expect(await errorFor(root, path.join('..', 'x'))).toMatch(/^cannot review "\.\.\/x": /)
  })
})
