import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { trackedSecrets } from './git-objects'
import { checkCommand } from './policy'

function repo(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-githist-'))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' })
  git('init', '-q')
  git('add', '-f', '-A')
  git('-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'x')
  return dir
}

const READS = [
  'git grep API_SECRET HEAD',
  'git grep -e API_SECRET main',
  'git grep --cached API_SECRET',
  'git show',
  'git show HEAD',
  'git show HEAD~0:src/a.ts',
  'git log -p',
  'git log --patch -1',
  'git log -L 1,2:src/a.ts',
  'git diff',
  'git diff --cached',
  'git diff HEAD~0 HEAD',
  'git cat-file -p HEAD:config/.env',
  'git archive HEAD',
  'git bundle create x.bundle HEAD',
  'git format-patch -1',
  'git blame src/a.ts',
  'git stash show -p',
  'git --work-tree=/tmp/out checkout HEAD -- .',
  'cd src && git log -p',
  'git log --stat -p',
]

const FINE = [
  'git grep API_SECRET',
  'git grep API_SECRET src',
  'git grep API_SECRET -- src',
  'git log --oneline',
  'git log --stat',
  'git show --stat HEAD',
  'git show --name-only',
  'git diff --stat',
  'git log -p -- src',
  'git diff HEAD -- src/a.ts',
  'git status',
  'git ls-files',
]

describe('git commands that print from the object store while HEAD tracks a secret', () => {
  it('are refused, naming the tracked file and the cure; the rest runs as before', async () => {
    const root = repo({
      'config/.env': 'API_SECRET=abcdefgh123\n',
      'src/a.ts': 'a\nb\n',
      '.env.example': 'K=\n',
    })
    expect(await trackedSecrets(root)).toEqual(['config/.env'])
    for (const line of READS) {
      const v = await checkCommand(line, {}, { root })
      expect([line, v.verdict]).toEqual([line, 'deny'])
      if (!line.startsWith('git cat-file')) {
        expect(v.reason).toContain('HEAD tracks the secrets file `config/.env`')
        expect(v.reason).toContain('git rm --cached config/.env')
      }
    }
    for (const line of FINE) {
      const v = await checkCommand(line, {}, { root })
      expect([line, v.verdict]).not.toEqual([line, 'deny'])
    }
  })

  it('are not refused where HEAD tracks no secret (a template only), or without a root', async () => {
    const clean = repo({ 'src/a.ts': 'a\n', '.env.example': 'K=\n' })
    expect(await trackedSecrets(clean)).toEqual([])
    const dirty = repo({ '.env': 'API_SECRET=abcdefgh123\n' })
    for (const line of ['git show', 'git grep x HEAD', 'git log -p', 'git diff']) {
      expect((await checkCommand(line, {}, { root: clean })).verdict).not.toBe('deny')
      expect((await checkCommand(line, {})).verdict).not.toBe('deny')
      expect((await checkCommand(line, {}, { root: dirty })).verdict).toBe('deny')
    }
  })

  it('follows HEAD: untracking the file lifts the refusal', async () => {
    const root = repo({ '.env': 'API_SECRET=abcdefgh123\n', 'a.txt': 'a\n' })
    expect((await checkCommand('git log -p', {}, { root })).verdict).toBe('deny')
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' })
    git('rm', '-q', '--cached', '.env')
    git('-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'untrack')
    expect(await trackedSecrets(root)).toEqual([])
    expect((await checkCommand('git log -p', {}, { root })).verdict).not.toBe('deny')
  })

  it('outside a repository, nothing is tracked', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-githist-'))
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
    expect(await trackedSecrets(dir)).toEqual([])
  })
})
