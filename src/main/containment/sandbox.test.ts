import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { expandBraces } from './globs'
import { createSandbox } from './sandbox'

const roots: string[] = []
function project(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-sandbox-'))
  roots.push(root)
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  return root
}
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true })
})

const SECRETS = {
  '.env': 'KEY=1',
  '.env.local': 'KEY=2',
  'config/.env.production': 'KEY=3',
  'deploy/prod.env': 'KEY=4',
  '.envrc': 'export KEY=5',
  '.git/config': '[core]',
  'node_modules/pkg/index.js': 'x',
  'packages/a/node_modules/dep/index.js': 'x',
  'dist/bundle.js': 'x',
  'certs/server.pem': 'x',
  'certs/server.key': 'x',
  'home/id_rsa': 'x',
  'home/id_rsa.pub': 'x',
  'certs/store.p12': 'x',
  '.npmrc': 'token',
  'sub/.netrc': 'machine',
}

describe('resolve', () => {
  it('denies the .git file of a git worktree or submodule, as it denies the .git folder', async () => {
    const root = project({
      '.git': 'gitdir: /elsewhere/.git/worktrees/x\n',
      'sub/.git': 'gitdir: ../x',
      'a.ts': 'a',
    })
    const sb = await createSandbox(root)
    expect(sb.resolve('.git')).toHaveProperty('error')
    expect(sb.resolve('sub/.git')).toHaveProperty('error')
    expect((await sb.listFiles()).files).toEqual(['a.ts'])
  })

  it('returns POSIX-relative paths and the realpath of the root', async () => {
    const root = project({ 'src/a.ts': 'a' })
    const sb = await createSandbox(root)
    expect(sb.root).toBe(fs.realpathSync(root))
    expect(sb.resolve('src/a.ts')).toEqual({ abs: path.join(sb.root, 'src/a.ts'), rel: 'src/a.ts' })
    expect(sb.resolve('./src//x/../a.ts')).toEqual({ abs: path.join(sb.root, 'src/a.ts'), rel: 'src/a.ts' })
    expect(sb.resolve('src/new/deep.ts')).toEqual({
      abs: path.join(sb.root, 'src/new/deep.ts'),
      rel: 'src/new/deep.ts',
    })
    expect(sb.resolve('.')).toEqual({ abs: sb.root, rel: '.' })
  })

  it('refuses absolute paths, naming the relative form when inside the root', async () => {
    const root = project({ 'src/a.ts': 'a' })
    const sb = await createSandbox(root)
    expect(sb.resolve(path.join(sb.root, 'src/a.ts'))).toEqual({
      error: `Absolute paths are not allowed: "${path.join(sb.root, 'src/a.ts')}". Use the project-relative path "src/a.ts" instead.`,
    })
    expect(sb.resolve('/etc/passwd')).toEqual({
      error:
        'Absolute paths are not allowed: "/etc/passwd". Paths are relative to the project root, e.g. "src/index.ts".',
    })
    expect('error' in sb.resolve('~/.ssh/id_ed25519')).toBe(true)
  })

  it('refuses .. that leaves the root but allows .. that stays inside', async () => {
    const root = project({ 'src/a.ts': 'a' })
    const sb = await createSandbox(root)
    expect(sb.resolve('../outside.txt')).toEqual({
      error: '"../outside.txt" leads outside the project root; only files inside the project can be used.',
    })
    expect(sb.resolve('src/../../x')).toEqual({
      error: '"src/../../x" leads outside the project root; only files inside the project can be used.',
    })
    expect(sb.resolve('src/../src/a.ts')).toMatchObject({ rel: 'src/a.ts' })
  })

  it('refuses NUL bytes', async () => {
    const sb = await createSandbox(project({ 'a.txt': 'a' }))
    expect(sb.resolve('a.txt\0.png')).toEqual({
      error: 'The path contains a NUL byte; give a plain relative path such as "src/index.ts".',
    })
  })

  it('refuses symlinks that lead out of the root, for existing and new files', async () => {
    const outside = project({ 'secret.txt': 'outside' })
    const root = project({ 'src/a.ts': 'a' })
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'))
    fs.symlinkSync(outside, path.join(root, 'outdir'))
    fs.symlinkSync(path.join(outside, 'nope'), path.join(root, 'dangling'))
    const sb = await createSandbox(root)
    const outError = (p: string) => ({
      error: `"${p}" is a symbolic link (or goes through one) that points outside the project root; it cannot be used.`,
    })
    expect(sb.resolve('link.txt')).toEqual(outError('link.txt'))
    expect(sb.resolve('outdir/secret.txt')).toEqual(outError('outdir/secret.txt'))
    expect(sb.resolve('outdir/new/file.txt')).toEqual(outError('outdir/new/file.txt'))
    expect(sb.resolve('dangling')).toEqual({
      error: '"dangling": is a symbolic link whose target does not exist; it cannot be used.',
    })
  })

  it('follows a symlinked directory inside the root to its real path', async () => {
    const root = project({ 'real/a.ts': 'a' })
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'))
    const sb = await createSandbox(root)
    expect(sb.resolve('alias/a.ts')).toEqual({ abs: path.join(sb.root, 'real/a.ts'), rel: 'real/a.ts' })
    expect(sb.resolve('alias/new.ts')).toEqual({ abs: path.join(sb.root, 'real/new.ts'), rel: 'real/new.ts' })
  })

  it('refuses denied files with a reason, at any depth, including through a link', async () => {
    const root = project(SECRETS)
    fs.symlinkSync(path.join(root, '.env'), path.join(root, 'innocent.txt'))
    const sb = await createSandbox(root)
    for (const p of Object.keys(SECRETS)) {
      if (p.startsWith('.git/')) continue
      const r = sb.resolve(p)
      expect(r, p).toHaveProperty('error')
      expect((r as { error: string }).error, p).toContain('is denied by the sandbox (it matches "')
    }
    expect(sb.resolve('.env')).toEqual({
      error:
        '".env" is denied by the sandbox (it matches ".env": secrets, dependencies and build output are off limits to the file tools). Do not try to read or change it another way; if the task really needs it, ask the user.',
    })
    expect(sb.resolve('.git/config')).toEqual({
      error:
        '".git/config" is inside .git/, which the file tools never touch; use the git tools (git_status, git_diff, git_log, git_show) instead.',
    })
    expect(sb.resolve('.git')).toHaveProperty('error')
    expect((sb.resolve('innocent.txt') as { error: string }).error).toContain('matches ".env"')
    expect(sb.resolve('.env', { allowDenied: true })).toEqual({
      abs: path.join(sb.root, '.env'),
      rel: '.env',
    })
    expect(sb.resolve('environment.ts')).toMatchObject({ rel: 'environment.ts' })
  })

  it('takes extra deny patterns and allows listed defaults', async () => {
    const root = project({ 'dist/app.js': 'x', 'secrets/token.txt': 'x' })
    const sb = await createSandbox(root, { extraDeny: ['secrets/'], allowDeny: ['dist/'] })
    expect(sb.isDenied('dist/app.js')).toBe(false)
    expect(sb.isDenied('secrets/token.txt')).toBe(true)
    expect(sb.isDenied('.env')).toBe(true)
    expect(sb.denyPatterns).not.toContain('dist/')
    expect((await sb.listFiles()).files).toEqual(['dist/app.js'])
  })
})

describe('isIgnored', () => {
  it('follows root and nested .gitignore files like git, and counts denied paths as ignored', async () => {
    const root = project({
      '.gitignore': 'build/\n*.log\n!keep.log\n',
      'pkg/.gitignore': 'generated.ts\n!important.log\n',
      'build/out.js': 'x',
      'app.log': 'x',
      'keep.log': 'x',
      'pkg/generated.ts': 'x',
      'pkg/important.log': 'x',
      'pkg/src/generated.ts': 'x',
      'pkg/index.ts': 'x',
      'src/a.ts': 'x',
    })
    const sb = await createSandbox(root)
    const verdicts = Object.fromEntries(
      [
        'build/out.js',
        'build',
        'app.log',
        'keep.log',
        'pkg/generated.ts',
        'pkg/src/generated.ts',
        'pkg/important.log',
        'pkg/index.ts',
        'src/a.ts',
        '.env',
      ].map((p) => [p, sb.isIgnored(p)]),
    )
    expect(verdicts).toEqual({
      'build/out.js': true,
      build: true,
      'app.log': true,
      'keep.log': false,
      'pkg/generated.ts': true,
      'pkg/src/generated.ts': true,
      'pkg/important.log': false,
      'pkg/index.ts': false,
      'src/a.ts': false,
      '.env': true,
    })
    // The listing (ripgrep) and isIgnored agree.
    const listed = (await sb.listFiles()).files
    expect(listed).toEqual([
      '.gitignore',
      'keep.log',
      'pkg/.gitignore',
      'pkg/important.log',
      'pkg/index.ts',
      'src/a.ts',
    ])
    for (const f of listed) expect(sb.isIgnored(f), f).toBe(false)
  })

  it('answers alike when a walk says what an entry is and when it stats the entry itself', async () => {
    const root = project({
      '.gitignore': 'out/\ncache/\n*.tmp\n',
      'out/x.js': 'x',
      cache: 'a file named like an ignored folder',
      'src/cache/c.ts': 'x',
      'src/out.tmp/y.ts': 'x',
      'src/a.ts': 'x',
    })
    const sb = await createSandbox(root)
    const entries: Array<{ rel: string; isDir: boolean }> = []
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = dir ? `${dir}/${e.name}` : e.name
        entries.push({ rel, isDir: e.isDirectory() })
        if (e.isDirectory()) walk(rel)
      }
    }
    walk('')
    expect(entries.length).toBeGreaterThan(8)
    for (const { rel, isDir } of entries) expect(sb.isIgnored(rel, isDir), rel).toBe(sb.isIgnored(rel))
    expect(sb.isIgnored('cache')).toBe(false) // `cache/` names folders only
    expect(sb.isIgnored('src/cache')).toBe(true)
    // Told, it does not look: a folder that is not there (yet) is judged as one.
    expect(sb.isIgnored('gone/out', true)).toBe(true)
    expect(sb.isIgnored('gone/out')).toBe(false)
  })

  it('sees a .gitignore edited during the session', async () => {
    const root = project({ '.gitignore': '', 'a.tmp': 'x' })
    const sb = await createSandbox(root)
    expect(sb.isIgnored('a.tmp')).toBe(false)
    fs.writeFileSync(path.join(root, '.gitignore'), '*.tmp\n')
    expect(sb.isIgnored('a.tmp')).toBe(true)
  })
})

describe('listFiles', () => {
  it('lists sorted regular files, hidden ones included, never denied or ignored ones, without a git repo', async () => {
    const root = project({
      ...SECRETS,
      '.gitignore': 'coverage/\n',
      'coverage/x.json': '{}',
      'src/b.ts': 'b',
      'src/a.ts': 'a',
      '.github/ci.yml': 'x',
      'README.md': 'r',
    })
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'src-link'))
    const sb = await createSandbox(root)
    // Symlinks are not listed (src-link): their targets are, once.
    expect(await sb.listFiles()).toEqual({
      files: ['.github/ci.yml', '.gitignore', 'README.md', 'src/a.ts', 'src/b.ts'],
      truncated: false,
      total: 5,
    })
  })

  it("awaits the caller's pause before each slice in which it judges the paths", async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 4200; i++) files[`d${i % 30}/f${i}.ts`] = ''
    const sb = await createSandbox(project(files))
    // A background listing while a step runs: it finishes only once the pause lets it.
    let pauses = 0
    let resume: () => void = () => {}
    const held = new Promise<void>((resolve) => (resume = resolve))
    let done = false
    const listing = sb.listFiles({ pause: () => (pauses++, held) }).then((r) => ((done = true), r))
    for (let waited = 0; pauses === 0 && waited < 10_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10))
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Held before the first slice: no path judged yet.
    expect({ pauses, done }).toEqual({ pauses: 1, done: false })
    resume()
    const { files: listed } = await listing
    expect(listed).toHaveLength(4200)
    expect(pauses).toBe(2) // 4,200 paths: two slices of 4,096 at most, a pause before each
  })

  it('filters by prefix and glob (braces, anchored, negated)', async () => {
    const root = project({
      'src/a.ts': '',
      'src/b.tsx': '',
      'src/c.js': '',
      'lib/d.ts': '',
      '.gitignore': 'src/ignored.ts\n',
      'src/ignored.ts': '',
    })
    const sb = await createSandbox(root)
    expect((await sb.listFiles({ prefix: 'src' })).files).toEqual(['src/a.ts', 'src/b.tsx', 'src/c.js'])
    expect((await sb.listFiles({ glob: '*.ts' })).files).toEqual(['lib/d.ts', 'src/a.ts'])
    expect((await sb.listFiles({ glob: '*.{ts,tsx}' })).files).toEqual(['lib/d.ts', 'src/a.ts', 'src/b.tsx'])
    expect((await sb.listFiles({ glob: 'src/*.ts' })).files).toEqual(['src/a.ts'])
    expect((await sb.listFiles({ glob: '!*.ts' })).files).toEqual(['.gitignore', 'src/b.tsx', 'src/c.js'])
    expect((await sb.listFiles({ prefix: 'src', glob: '*.js' })).files).toEqual(['src/c.js'])
  })

  it('applies the .gitignore files above a prefix, rebased, with deeper files winning', async () => {
    const root = project({
      '.gitignore': '*.log\n/top.txt\nsrc/ignored.ts\nbuild/\n',
      'packages/.gitignore': 'gen/\n/local.txt\n',
      'packages/a/.gitignore': '!keep.log\n',
      'packages/a/index.ts': '',
      'packages/a/debug.log': '',
      'packages/a/keep.log': '',
      'packages/a/gen/out.ts': '',
      'packages/a/local.txt': '',
      'packages/local.txt': '',
      'packages/a/top.txt': '',
      'src/ignored.ts': '',
      'src/kept.ts': '',
      'build/x.js': '',
    })
    const sb = await createSandbox(root)
    const all = (await sb.listFiles()).files
    expect((await sb.listFiles({ prefix: 'packages/a' })).files).toEqual(
      all.filter((f) => f.startsWith('packages/a/')),
    )
    expect((await sb.listFiles({ prefix: 'packages/a' })).files).toEqual([
      'packages/a/.gitignore',
      'packages/a/index.ts',
      'packages/a/keep.log',
      'packages/a/local.txt',
      'packages/a/top.txt',
    ])
    expect((await sb.listFiles({ prefix: 'src' })).files).toEqual(['src/kept.ts'])
    expect(await sb.listFiles({ prefix: 'build' })).toEqual({ files: [], truncated: false, total: 0 })
  })

  it('skips build/ and *.min.js by default, as the original index did, and still resolves them', async () => {
    const sb = await createSandbox(
      project({
        'src/a.ts': 'const a = 1\n',
        'build/out.js': 'const a = 1\n',
        'pkg/build/gen.js': 'const a = 1\n',
        'web/vendor.min.js': 'const a = 1\n',
        'web/app.js': 'const a = 1\n',
      }),
    )
    expect((await sb.listFiles()).files).toEqual(['src/a.ts', 'web/app.js'])
    expect(sb.isIgnored('build')).toBe(true)
    expect(sb.isIgnored('pkg/build/gen.js')).toBe(true)
    expect(sb.isIgnored('web/vendor.min.js')).toBe(true)
    expect(sb.isIgnored('web/app.js')).toBe(false)
    expect(await sb.listFiles({ prefix: 'build' })).toEqual({ files: [], truncated: false, total: 0 })
    expect(sb.resolve('build/out.js')).toMatchObject({ rel: 'build/out.js' })
  })

  it('stops at the limit and says so', async () => {
    const files: Record<string, string> = {}
    for (let i = 0; i < 50; i++) files[`f${String(i).padStart(2, '0')}.txt`] = ''
    const sb = await createSandbox(project(files))
    const limited = await sb.listFiles({ limit: 10 })
    expect(limited.truncated).toBe(true)
    expect(limited.files).toHaveLength(10)
    expect(limited.total).toBe(50)
    expect([...limited.files].sort()).toEqual(limited.files)
    expect(await sb.listFiles({ limit: 50 })).toEqual({
      files: Object.keys(files),
      truncated: false,
      total: Object.keys(files).length,
    })
    const globbed = await sb.listFiles({ limit: 5, glob: 'f1*' })
    expect(globbed).toEqual({ files: expect.any(Array), truncated: true, total: 10 })
    expect(globbed.files).toHaveLength(5)
  })
})

describe('expandBraces', () => {
  it('expands groups, nested and repeated', () => {
    expect(expandBraces('*.{ts,tsx}')).toEqual(['*.ts', '*.tsx'])
    expect(expandBraces('{src,lib}/**/*.{js,mjs}')).toEqual([
      'src/**/*.js',
      'src/**/*.mjs',
      'lib/**/*.js',
      'lib/**/*.mjs',
    ])
    expect(expandBraces('a{b,c{d,e}}')).toEqual(['ab', 'acd', 'ace'])
    expect(expandBraces('plain{x}')).toEqual(['plain{x}'])
  })
})
