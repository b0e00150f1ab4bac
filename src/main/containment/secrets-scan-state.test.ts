import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished, vi } from 'vitest'

/** A fresh copy of the walk's modules: what a new process starts with. */
async function newProcess(dataDir: string) {
  vi.resetModules()
  const state = await import('./secrets-scan-state')
  const mask = await import('./project-secrets')
  state.keepSecretsScansIn(dataDir)
  return mask
}

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe("the secrets walk's saved state", () => {
  it('lets a new process re-read only folders changed since, and is ignored when garbled', async () => {
    const root = tempDir('stepwise-scan-')
    const outside = tempDir('stepwise-scan-out-')
    const dataDir = tempDir('stepwise-scan-data-')
    fs.mkdirSync(path.join(root, 'a/b'), { recursive: true })
    fs.writeFileSync(path.join(root, '.env'), 'K=v\n')
    fs.writeFileSync(path.join(root, 'a/b/.env.local'), 'K=v\n')
    fs.writeFileSync(path.join(outside, 'id'), 'key\n')
    fs.linkSync(path.join(outside, 'id'), path.join(root, 'a/linked'))
    const everything = {
      secrets: [path.join(root, '.env'), path.join(root, 'a/b/.env.local')],
      hardLinks: [path.join(root, 'a/linked')],
    }

    const first = (await newProcess(dataDir)).findProjectSecrets(root)
    expect(first).toMatchObject(everything)
    const [file] = fs.readdirSync(path.join(dataDir, 'secrets-scan'))
    const saved = path.join(dataDir, 'secrets-scan', file)

    // Proof the next process starts from the file: a folder whose mtime is unchanged is
    // taken as saved, even when the file was edited to leave its secret out.
    const state = JSON.parse(fs.readFileSync(saved, 'utf8')) as { dirs: [string, { secrets: string[] }][] }
    state.dirs.find(([dir]) => dir === root)![1].secrets = []
    fs.writeFileSync(saved, JSON.stringify(state) + '\n')
    expect((await newProcess(dataDir)).findProjectSecrets(root).secrets).toEqual([
      path.join(root, 'a/b/.env.local'),
    ])
    // A name added to the folder changes its mtime: read again, its secret is back.
    fs.writeFileSync(path.join(root, 'new.txt'), 'n\n')
    expect((await newProcess(dataDir)).findProjectSecrets(root)).toMatchObject(everything)

    // Garbled, or of another root: walked as if there were none.
    for (const broken of ['{"version":1', JSON.stringify({ version: 1, root: '/elsewhere', dirs: [] })]) {
      fs.writeFileSync(saved, broken)
      expect((await newProcess(dataDir)).findProjectSecrets(root)).toMatchObject(everything)
    }
    // One folder of the wrong shape (a secret that is not a path): none of the file is taken.
    const whole = JSON.parse(fs.readFileSync(saved, 'utf8')) as { dirs: [string, { secrets: unknown[] }][] }
    whole.dirs.find(([dir]) => dir === root)![1].secrets = [42]
    fs.writeFileSync(saved, JSON.stringify(whole) + '\n')
    expect((await newProcess(dataDir)).findProjectSecrets(root)).toMatchObject(everything)
  })
})

describe("the history check's saved verdict", () => {
  /** A new process whose git cannot run: only a saved verdict can answer. */
  async function processWithoutGit(dataDir: string) {
    vi.resetModules()
    vi.doMock('../git/git-safe', () => ({
      openSafeGit: () => Promise.reject(new Error('git is not there')),
    }))
    onTestFinished(() => void vi.doUnmock('../git/git-safe'))
    const state = await import('./secrets-scan-state')
    state.keepSecretsScansIn(dataDir)
    return (await import('../sandboxing/git-history')).historiesWithSecrets
  }

  it('answers a new process while refs and the index are unchanged, and is asked again after a commit', async () => {
    const repo = tempDir('stepwise-hist-')
    const dataDir = tempDir('stepwise-hist-data-')
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=a@b.c', '-c', 'user.name=n', ...args], { cwd: repo })
    git('init', '-q')
    fs.writeFileSync(path.join(repo, '.env'), 'TOKEN=s3cret\n')
    git('add', '.env')
    git('commit', '-qm', 'oops')
    git('rm', '-q', '--cached', '.env')
    git('commit', '-qm', 'untrack')

    vi.resetModules()
    const state = await import('./secrets-scan-state')
    state.keepSecretsScansIn(dataDir)
    const first = await (
      await import('../sandboxing/git-history')
    ).historiesWithSecrets([path.join(repo, '.git')])
    expect(first.map((h) => h.files)).toEqual([['.env']])

    const again = await (await processWithoutGit(dataDir))([path.join(repo, '.git')])
    expect(again).toEqual(first)

    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n')
    git('add', 'a.txt')
    git('commit', '-qm', 'more')
    // Refs moved: not trusted, checked again (here git fails, so the objects stay hidden unchecked).
    const moved = await (await processWithoutGit(dataDir))([path.join(repo, '.git')])
    expect(moved.map((h) => h.files)).toEqual([[]])
    expect(moved[0].why).toMatch(/could not be checked/)
  })
})

describe('the walk of a throwaway folder', () => {
  it('keeps nothing of it (the sandbox probe makes one per process)', async () => {
    const root = tempDir('stepwise-scan-once-')
    const dataDir = tempDir('stepwise-scan-data-')
    fs.writeFileSync(path.join(root, '.env'), 'K=v\n')
    fs.mkdirSync(path.join(root, '.git'))
    const walk = await newProcess(dataDir)
    expect(walk.findSecretsOnce(root)).toMatchObject({
      secrets: [path.join(root, '.env')],
      gitPaths: [path.join(root, '.git')],
    })
    expect(fs.existsSync(path.join(dataDir, 'secrets-scan'))).toBe(false)
    expect(walk.walkedFolders(root)).toEqual([])
    // The walk that remembers still writes its file.
    walk.findProjectSecrets(root)
    expect(fs.readdirSync(path.join(dataDir, 'secrets-scan'))).toHaveLength(1)
  })
})
