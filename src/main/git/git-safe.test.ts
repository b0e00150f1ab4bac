import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { commandSettingsFrom } from '../sandboxing/settings'
import { addWorktree } from '../timetravel/fork-worktree'
import { gitCommitTool, gitDiffTool, gitLogTool, gitShowTool, gitStatusTool } from '../tools/git'
import { hardeningFor, parseConfigList, safeGitEnv, safeGitRaw } from './git-safe'
import { git, makeContext, makeProject, okResult, repoWith, writeFiles } from '../tools/test-support'
import type { ToolContext } from '../tools/types'

/*
 * A repository whose config, hooks and attributes each try to run a program
 * that writes a marker outside the repository. Plain git runs them (checked
 * first, so the plants are known to be live); the git tools must run none.
 */

const HOOKS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'reference-transaction',
  'post-index-change',
  'pre-auto-gc',
]

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Plants every repository-configured program; returns the folder the markers would appear in. */
function plant(root: string, opts: { hooksIn: 'hooksPath' | '.git/hooks' }): string {
  const outside = tempDir('stepwise-git-outside-')
  const marks = path.join(outside, 'marks')
  fs.mkdirSync(marks)
  // `#` ends the shell command before the arguments git appends ("$@").
  const touch = (name: string) => `touch ${marks}/${name} #`
  const hookDir =
    opts.hooksIn === 'hooksPath' ? path.join(outside, 'hooks') : path.join(root, '.git', 'hooks')
  fs.mkdirSync(hookDir, { recursive: true })
  for (const hook of HOOKS) {
    fs.writeFileSync(path.join(hookDir, hook), `#!/bin/sh\ntouch ${marks}/hook-${hook}\n`, { mode: 0o755 })
  }
  const gpg = path.join(outside, 'gpg.sh')
  fs.writeFileSync(gpg, `#!/bin/sh\ntouch ${marks}/gpg\nexit 1\n`, { mode: 0o755 })
  const included = path.join(outside, 'included.cfg')
  fs.writeFileSync(
    included,
    `[pager]\n\tshow = ${touch('include-pager')}\n[filter "inc"]\n\tclean = touch ${marks}/include-clean; cat\n\tsmudge = touch ${marks}/include-smudge; cat\n`,
  )
  const config: [string, string][] = [
    ['core.fsmonitor', touch('fsmonitor')],
    ['core.pager', `touch ${marks}/pager; cat`],
    ['pager.status', `touch ${marks}/pager-status; cat`],
    ['pager.log', `touch ${marks}/pager-log; cat`],
    ['diff.external', touch('diff-external')],
    ['diff.evil.textconv', `touch ${marks}/textconv; cat`],
    ['diff.evil.command', touch('diff-command')],
    ['filter.evil.clean', `touch ${marks}/clean; cat`],
    ['filter.evil.smudge', `touch ${marks}/smudge; cat`],
    ['filter.evil.required', 'true'],
    ['core.sshCommand', touch('ssh')],
    ['gpg.program', gpg],
    ['commit.gpgSign', 'true'],
    ['core.editor', `touch ${marks}/editor; echo planted >`],
    ['sequence.editor', touch('sequence-editor')],
    ['credential.helper', `!${touch('credential')}`],
    ['core.askPass', touch('askpass')],
    ['include.path', included],
  ]
  if (opts.hooksIn === 'hooksPath') config.push(['core.hooksPath', hookDir])
  for (const [key, value] of config) git(root, 'config', key, value)
  writeFiles(root, { '.gitattributes': '*.txt filter=evil diff=evil\n*.md filter=inc\n*.js filter=proc\n' })
  return marks
}

/** A long-running filter process: any git that reads a `*.js` file starts it (plain git then fails, so it comes last). */
function plantProcessFilter(root: string, marks: string): void {
  git(root, 'config', 'filter.proc.process', `touch ${marks}/filter-process #`)
}

function hookAt(dir: string, name: string, marks: string): void {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, name), `#!/bin/sh\ntouch ${marks}/hook-${name}\n`, { mode: 0o755 })
}

const marksIn = (dir: string) => fs.readdirSync(dir).sort()

/** Plain git, as a user's shell would run it: proves the plants are live. */
function plainGit(cwd: string, ...args: string[]): void {
  try {
    execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_PAGER: '' } })
  } catch {
    // A planted program may make git fail; only its side effect matters here.
  }
}

function freshRepo(): string {
  const root = repoWith({ 'a.txt': 'one\n', 'notes.md': 'notes\n', 'b.js': 'b\n' })
  git(root, 'commit', '-q', '--allow-empty', '-m', 'second')
  return root
}

async function planOf(ctx: ToolContext, input: unknown) {
  const plan = await gitCommitTool.plan(gitCommitTool.input.parse(input), ctx)
  if (!plan.ok) throw new Error(`expected a plan, got ${plan.error}`)
  return plan
}

/** Every git tool, the way a session would call them. */
async function runEveryTool(root: string, ctx: ToolContext): Promise<void> {
  okResult(await gitStatusTool.run({}, ctx))
  okResult(await gitDiffTool.run({}, ctx))
  okResult(await gitDiffTool.run({ staged: true }, ctx))
  okResult(await gitDiffTool.run({ ref: 'HEAD~1..HEAD' }, ctx))
  okResult(await gitDiffTool.run({ ref: 'HEAD' }, ctx))
  okResult(await gitLogTool.run({}, ctx))
  okResult(await gitShowTool.run({ ref: 'HEAD~1' }, ctx))
  okResult(await gitShowTool.run({ ref: 'HEAD:a.txt' }, ctx))
  okResult(await gitShowTool.run({ ref: 'HEAD:notes.md' }, ctx))
  const paths = await planOf(ctx, { message: 'Change a and notes', files: ['a.txt', 'notes.md'] })
  okResult(await gitCommitTool.execute(paths, ctx, { onOutput: () => {} }))
  writeFiles(root, { 'b.js': 'b2\n' })
  // Staged through the hardened client: plain git would start the planted filter process.
  await safeGitRaw(root, ['add', 'b.js'])
  const index = await planOf(ctx, { message: 'Change b' })
  okResult(await gitCommitTool.execute(index, ctx, { onOutput: () => {} }))
}

describe('git tools in a repository that plants programs', () => {
  for (const hooksIn of ['hooksPath', '.git/hooks'] as const) {
    it(`runs none of them (hooks in ${hooksIn}) while plain git runs them`, async () => {
      const live = freshRepo()
      const liveMarks = plant(live, { hooksIn })
      writeFiles(live, { 'a.txt': 'two\n', 'notes.md': 'more notes\n' })
      plainGit(live, 'status')
      plainGit(live, 'diff')
      plainGit(live, 'log', '-p', '--no-ext-diff', '-1', '--', 'a.txt')
      plainGit(live, 'add', 'a.txt', 'notes.md')
      plainGit(live, '-c', 'commit.gpgSign=false', 'commit', '-q', '-m', 'x')
      plainGit(live, 'commit', '-q', '--allow-empty', '-m', 'signed')
      plainGit(live, '-c', 'commit.gpgSign=false', 'commit', '-q', '--allow-empty')
      plainGit(live, 'checkout', '-q', '-b', 'other')
      plainGit(live, '-c', 'commit.gpgSign=false', 'rebase', '-q', '-i', 'HEAD~1')
      plainGit(live, 'ls-remote', 'ssh://example.invalid/x')
      plantProcessFilter(live, liveMarks)
      writeFiles(live, { 'b.js': 'b3\n' })
      plainGit(live, 'add', 'b.js')
      expect(marksIn(liveMarks)).toEqual(
        expect.arrayContaining([
          'fsmonitor',
          'clean',
          'include-clean',
          'diff-external',
          'textconv',
          'gpg',
          'editor',
          'sequence-editor',
          'ssh',
          'filter-process',
          'hook-pre-commit',
          'hook-prepare-commit-msg',
          'hook-commit-msg',
          'hook-post-commit',
          'hook-post-checkout',
          'hook-reference-transaction',
          'hook-post-index-change',
        ]),
      )

      const root = freshRepo()
      const marks = plant(root, { hooksIn })
      plantProcessFilter(root, marks)
      writeFiles(root, { 'a.txt': 'two\n', 'notes.md': 'more notes\n' })
      const ctx = await makeContext(root)
      await runEveryTool(root, ctx)
      expect(git(root, 'log', '--format=%s', '-3').trim().split('\n')).toEqual([
        'Change b',
        'Change a and notes',
        'second',
      ])
      // The commits hold the files' bytes as they are: no clean filter rewrote them.
      expect(git(root, 'cat-file', 'blob', 'HEAD~1:a.txt')).toBe('two\n')
      expect(marksIn(marks)).toEqual([])

      // A fork into a worktree checks files out: no smudge filter, no post-checkout hook.
      const tree = path.join(tempDir('stepwise-git-wt-'), 'wt')
      await addWorktree(root, tree)
      expect(fs.readFileSync(path.join(tree, 'a.txt'), 'utf8')).toBe('two\n')
      expect(await safeGitRaw(root, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main\n')
      expect(marksIn(marks)).toEqual([])
    })
  }

  it("runs the repository's hooks on an approved commit when the user's settings allow hooks", async () => {
    const root = freshRepo()
    const hookDir = path.join(root, '.husky')
    const marks = tempDir('stepwise-git-hookmarks-')
    fs.mkdirSync(hookDir)
    fs.writeFileSync(path.join(hookDir, 'pre-commit'), `#!/bin/sh\ntouch ${marks}/pre-commit\n`, {
      mode: 0o755,
    })
    git(root, 'config', 'core.hooksPath', '.husky')
    git(root, 'config', 'core.fsmonitor', `touch ${marks}/fsmonitor #`)
    writeFiles(root, { 'a.txt': 'two\n' })
    const off = await makeContext(root)
    okResult(
      await gitCommitTool.execute(await planOf(off, { message: 'no hooks' }), off, { onOutput: () => {} }),
    )
    expect(marksIn(marks)).toEqual([])
    writeFiles(root, { 'a.txt': 'three\n' })
    const on: ToolContext = {
      ...(await makeContext(root)),
      commands: commandSettingsFrom({ gitHooks: true }),
    }
    // Planning and reading never run hooks; the approved commit does.
    const plan = await planOf(on, { message: 'with hooks' })
    okResult(await gitStatusTool.run({}, on))
    expect(marksIn(marks)).toEqual([])
    okResult(await gitCommitTool.execute(plan, on, { onOutput: () => {} }))
    expect(marksIn(marks)).toEqual(['pre-commit'])
  })
})

describe('a .git file pointing at a planted git directory', () => {
  it('is read as the repository it names, and its programs stay off', async () => {
    const root = freshRepo()
    const marks = tempDir('stepwise-git-gitdirmarks-')
    fs.renameSync(path.join(root, '.git'), path.join(root, '.planted'))
    fs.writeFileSync(path.join(root, '.git'), 'gitdir: .planted\n')
    git(root, 'config', 'core.fsmonitor', `touch ${marks}/fsmonitor #`)
    git(root, 'config', 'filter.evil.clean', `touch ${marks}/clean; cat`)
    writeFiles(root, { '.gitattributes': '*.txt filter=evil\n', 'a.txt': 'two\n' })
    hookAt(path.join(root, '.planted', 'hooks'), 'pre-commit', marks)
    const ctx = await makeContext(root)
    okResult(await gitStatusTool.run({}, ctx))
    okResult(
      await gitCommitTool.execute(await planOf(ctx, { message: 'm', files: ['a.txt'] }), ctx, {
        onOutput: () => {},
      }),
    )
    expect(marksIn(marks)).toEqual([])
    // Same size, newer mtime: plain git must read a.txt through the filter to know whether it changed.
    fs.utimesSync(path.join(root, 'a.txt'), new Date(), new Date(Date.now() + 10_000))
    plainGit(root, 'status')
    expect(marksIn(marks)).toEqual(expect.arrayContaining(['fsmonitor', 'clean']))
  })
})

describe('a submodule with its own planted filter', () => {
  it('is not looked inside by git_status or git_diff', async () => {
    const marks = tempDir('stepwise-git-submarks-')
    const sub = repoWith({ 'f.txt': 'x\n' })
    const root = repoWith({ 'a.txt': 'a\n' })
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub')
    git(root, 'commit', '-qm', 'add sub')
    const inner = path.join(root, 'sub')
    git(inner, 'config', 'filter.ev.clean', `touch ${marks}/sub-clean; cat`)
    git(root, 'config', 'submodule.sub.ignore', 'none')
    writeFiles(inner, { '.gitattributes': '*.txt filter=ev\n' })
    const ctx = await makeContext(root)
    for (let i = 0; i < 2; i++) {
      // Same size, newer mtime: git must read the file (through the filter) to know whether it changed.
      fs.utimesSync(path.join(inner, 'f.txt'), new Date(), new Date(Date.now() + 5000 * (i + 1)))
      okResult(await gitStatusTool.run({}, ctx))
      okResult(await gitDiffTool.run({ ref: 'HEAD' }, ctx))
    }
    expect(marksIn(marks)).toEqual([])
    // Plain git does run it: the plant is live.
    fs.utimesSync(path.join(inner, 'f.txt'), new Date(), new Date(Date.now() + 20000))
    plainGit(root, 'status')
    expect(marksIn(marks)).toEqual(['sub-clean'])
  })
})

describe('a submodule that asks to be looked inside', () => {
  it("runs none of its programs: not for diff.submodule=diff, nor for .gitmodules' ignore = none", async () => {
    const marks = tempDir('stepwise-git-submarks-')
    const sub = repoWith({ 'f.txt': 'x\n' })
    const root = repoWith({ 'a.txt': 'a\n' })
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub')
    fs.appendFileSync(path.join(root, '.gitmodules'), '\tignore = none\n')
    git(root, 'add', '.gitmodules')
    git(root, 'commit', '-qm', 'add sub')
    const inner = path.join(root, 'sub')
    // The submodule's commit moves on, its file stays dirty, and its own config names programs.
    writeFiles(inner, { 'g.txt': 'g\n', '.gitattributes': '*.txt filter=ev diff=ev\n' })
    git(inner, 'add', '-A')
    git(inner, 'commit', '-qm', 'moved')
    git(inner, 'config', 'filter.ev.clean', `touch ${marks}/sub-clean; cat`)
    git(inner, 'config', 'diff.ev.textconv', `touch ${marks}/sub-textconv; cat`)
    git(root, 'config', 'diff.submodule', 'diff')
    const touchFile = (n: number) =>
      fs.utimesSync(path.join(inner, 'f.txt'), new Date(), new Date(Date.now() + 5000 * n))
    touchFile(1)
    const ctx = await makeContext(root)
    okResult(await gitDiffTool.run({ ref: 'HEAD' }, ctx))
    okResult(await gitShowTool.run({ ref: 'HEAD' }, ctx))
    // Nothing staged: git commit fails and prints a status, which looks inside an `ignore = none` submodule.
    await expect(safeGitRaw(root, ['commit', '-m', 'nothing'])).rejects.toThrow()
    expect(marksIn(marks)).toEqual([])
    // Plain git does run them: the plants are live.
    touchFile(2)
    plainGit(root, 'commit', '-m', 'nothing')
    plainGit(root, 'diff', 'HEAD')
    expect(marksIn(marks).sort()).toEqual(['sub-clean', 'sub-textconv'])
  })
})

describe('a repository whose git directory is elsewhere', () => {
  it("refuses another repository's git directory (a .git file, a .git symlink, a commondir)", async () => {
    const other = repoWith({ 'notes.txt': 'other\n' })
    const head = git(other, 'rev-parse', 'HEAD')
    const viaFile = makeProject({ 'a.txt': 'a\n' })
    fs.writeFileSync(path.join(viaFile, '.git'), `gitdir: ${path.join(other, '.git')}\n`)
    const viaLink = makeProject({ 'a.txt': 'a\n' })
    fs.symlinkSync(path.join(other, '.git'), path.join(viaLink, '.git'))
    const viaCommon = repoWith({ 'a.txt': 'a\n' })
    fs.writeFileSync(path.join(viaCommon, '.git', 'commondir'), path.join(other, '.git'))
    for (const root of [viaFile, viaLink, viaCommon]) {
      await expect(safeGitRaw(root, ['log', '-1'])).rejects.toThrow(/outside the project/)
      await expect(safeGitRaw(root, ['commit', '--allow-empty', '-m', 'x'])).rejects.toThrow(
        /outside the project/,
      )
    }
    expect(git(other, 'rev-parse', 'HEAD')).toBe(head)
  })

  it("keeps git's own layouts: a linked worktree and a submodule opened on its own", async () => {
    const root = repoWith({ 'a.txt': 'a\n' })
    const tree = path.join(tempDir('stepwise-git-wt-'), 'tree')
    await addWorktree(root, tree)
    expect(await safeGitRaw(tree, ['status', '--porcelain'])).toBe('')
    const sub = repoWith({ 'f.txt': 'x\n' })
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub')
    expect(await safeGitRaw(path.join(root, 'sub'), ['log', '-1', '--format=%s'])).toMatch(/\S/)
  })
})

describe('the environment and overrides', () => {
  const saved = { ...process.env }
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key]
    Object.assign(process.env, saved)
  })

  it('drops git, editor and ssh variables of the parent, keeping home and identity', () => {
    const env = safeGitEnv({
      PATH: '/usr/bin',
      HOME: '/home/u',
      GIT_EXTERNAL_DIFF: 'x',
      GIT_SSH_COMMAND: 'x',
      GIT_CONFIG_PARAMETERS: "'core.fsmonitor=x'",
      GIT_DIR: '/elsewhere',
      EDITOR: 'x',
      LD_PRELOAD: 'x',
      OPENAI_API_KEY: 'sk-x',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_CONFIG_GLOBAL: '/home/u/.gitconfig-work',
    })
    expect(Object.keys(env).sort()).toEqual(
      [
        'PATH',
        'HOME',
        'GIT_AUTHOR_NAME',
        'GIT_CONFIG_GLOBAL',
        'LC_MESSAGES',
        'GIT_CONFIG_NOSYSTEM',
        'GIT_TERMINAL_PROMPT',
        'GIT_OPTIONAL_LOCKS',
        'GIT_PAGER',
        'PAGER',
        'GCM_INTERACTIVE',
      ].sort(),
    )
  })

  it('ignores planted GIT_* variables of the parent process', async () => {
    const root = freshRepo()
    const marks = tempDir('stepwise-git-envmarks-')
    process.env.GIT_EXTERNAL_DIFF = `touch ${marks}/env-external #`
    process.env.GIT_CONFIG_PARAMETERS = `'core.fsmonitor=touch ${marks}/env-fsmonitor #'`
    process.env.GIT_EDITOR = `touch ${marks}/env-editor; echo x >`
    writeFiles(root, { 'a.txt': 'two\n' })
    const ctx = await makeContext(root)
    okResult(await gitStatusTool.run({}, ctx))
    okResult(await gitDiffTool.run({}, ctx))
    okResult(await gitCommitTool.execute(await planOf(ctx, { message: 'm' }), ctx, { onOutput: () => {} }))
    expect(marksIn(marks)).toEqual([])
  })

  it('distrusts the global config when the project holds it (a project opened at $HOME)', async () => {
    const root = freshRepo()
    const marks = tempDir('stepwise-git-homemarks-')
    // A filter: the one kind of program a trusted global config keeps running.
    writeFiles(root, {
      '.gitconfig': `[filter "g"]\n\tclean = touch ${marks}/global-clean; cat\n`,
      '.gitattributes': '*.txt filter=g\n',
      'a.txt': 'two\n',
    })
    process.env.HOME = root
    delete process.env.XDG_CONFIG_HOME
    delete process.env.GIT_CONFIG_GLOBAL
    okResult(await gitStatusTool.run({}, await makeContext(root)))
    expect(marksIn(marks)).toEqual([])
    plainGit(root, 'status')
    expect(marksIn(marks)).toEqual(['global-clean'])
  })

  it("puts back the user's own value of a key the repository overrides", () => {
    const entries = parseConfigList(
      [
        'global\0filter.lfs.clean\ngit-lfs clean -- %f',
        'local\0filter.lfs.clean\nevil',
        'local\0Filter.Evil.Process\nevil',
        'local\0core.hooksPath\n.husky',
        'local\0user.name\nDev',
        'global\0gpg.program\n/usr/bin/gpg2',
        'local\0gpg.program\nevil',
        '',
      ].join('\0'),
    )
    const settings = new Map(hardeningFor(entries))
    expect(settings.get('filter.lfs.clean')).toBe('git-lfs clean -- %f')
    expect(settings.get('filter.Evil.process')).toBe('')
    expect(settings.get('gpg.program')).toBe('/usr/bin/gpg2')
    expect(settings.get('core.hooksPath')).toBe('/dev/null')
    expect(settings.get('core.fsmonitor')).toBe('false')
    expect(settings.has('user.name')).toBe(false)
    // With hooks allowed, the repository's hooksPath (husky) stands.
    const withHooks = new Map(hardeningFor(entries, { hooks: true }))
    expect(withHooks.has('core.hooksPath')).toBe(false)
  })
})

describe('host git calls', () => {
  it('all go through git-safe: no other core module spawns git or imports simple-git', () => {
    const src = path.resolve(import.meta.dirname, '..')
    const offenders: string[] = []
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const abs = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(abs)
        else if (/\.ts$/.test(entry.name) && !/\.test\.ts$|test-support\.ts$|[/\\]testing[/\\]/.test(abs)) {
          const text = fs.readFileSync(abs, 'utf8')
          if (abs.endsWith('git-safe.ts')) continue
          if (/from 'simple-git'|(spawn|execFile|spawnSync|execFileSync)\(\s*'git'/.test(text))
            offenders.push(path.relative(src, abs))
        }
      }
    }
    walk(src)
    expect(offenders).toEqual([])
  })
})
