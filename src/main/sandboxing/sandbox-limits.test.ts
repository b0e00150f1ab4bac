import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { MAX_PROJECT_MOUNTS, bwrapArgs } from './bwrap'
import { runCommand } from './runner'
import { sandboxStatus } from './sandbox-probe'
import { findProjectSecrets } from '../containment/project-secrets'
import { setSecretsTracking } from './secrets-mask'

/*
 * What the command sandbox does at its limits: a tree too big to walk whole, and more
 * hard links than it can bind. It never runs a command half-masked, and never lets
 * bwrap fail every command on its argument limit: it refuses, saying why.
 */

const status = sandboxStatus()

function tempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-limits-')))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const run = (cwd: string, command: string, walkLimit?: number) =>
  runCommand({ command, cwd, timeoutMs: 20_000, sandbox: { network: false }, walkLimit })

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, encoding: 'utf8' })

/** A project with a secret and a repository at its root, then `files` empty files beside them. */
function bigProject(files: number): string {
  const root = tempDir()
  fs.writeFileSync(path.join(root, '.env'), 'API_KEY=limits-secret-value\n')
  git(root, 'init', '-q')
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(root, `f${i}`), '')
  fs.mkdirSync(path.join(root, 'deep'))
  fs.writeFileSync(path.join(root, 'deep', 'id_rsa'), 'deep-key\n')
  return root
}

describe('a tree too big for the secrets walk', () => {
  it('still records the root’s own secrets and .git, and says where it stopped', () => {
    setSecretsTracking(false)
    onTestFinished(() => setSecretsTracking(process.platform === 'linux'))
    const root = bigProject(300)
    const found = findProjectSecrets(root, 100)
    expect(found.truncatedAt).toBe(100)
    expect(found.secrets).toEqual([path.join(root, '.env')])
    expect(found.gitPaths).toEqual([path.join(root, '.git')])
    // Walked whole, the deep one is there too.
    const whole = findProjectSecrets(root, 1_000)
    expect(whole.truncatedAt).toBeUndefined()
    expect(whole.secrets.sort()).toEqual([path.join(root, '.env'), path.join(root, 'deep', 'id_rsa')])
  })

  it.runIf(status.available)(
    'refuses every sandboxed command, saying why and what to do, until it fits',
    async () => {
      const root = bigProject(300)
      const refused = await run(root, 'grep -rn API_KEY . ; echo ran > ran.txt', 100)
      expect(refused.spawnError).toMatch(
        /^The command sandbox stopped looking through this project after 100 files and folders .* Commands are refused until the project is smaller: open a subfolder as the project, or move generated or vendored trees/,
      )
      expect(refused.output).toBe('')
      expect(fs.existsSync(path.join(root, 'ran.txt'))).toBe(false)
      // Smaller than the limit again: commands run, the secrets masked and .git read-only.
      for (let i = 0; i < 250; i++) fs.rmSync(path.join(root, `f${i}`))
      const ok = await run(root, 'cat .env deep/id_rsa; echo x >> .git/config && echo wrote', 100)
      expect(ok.spawnError).toBeUndefined()
      expect(ok.output).not.toMatch(/limits-secret-value|deep-key|wrote/)
    },
  )
})

describe('hard links', () => {
  it('cost no mount when every name is inside the project (3,500 of them)', async () => {
    const root = tempDir()
    fs.writeFileSync(path.join(root, 'a.txt'), 'shared\n')
    fs.mkdirSync(path.join(root, 'links'))
    for (let i = 0; i < 3_500; i++) fs.linkSync(path.join(root, 'a.txt'), path.join(root, 'links', `l${i}`))
    const found = findProjectSecrets(root)
    expect(found.hardLinks).toEqual([])
    const args = bwrapArgs({ root, network: false, project: found })
    expect(args.filter((a) => a.startsWith(path.join(root, 'links'))).length).toBe(0)
    if (!status.available) return
    const ok = await run(root, 'echo changed > links/l7 && cat a.txt')
    expect(ok.spawnError).toBeUndefined()
    expect(ok.output).toBe('changed\n')
  })

  it('to a file outside are bound read-only, and past the bound refused with the reason', async () => {
    const outside = tempDir()
    const target = path.join(outside, 'victim.txt')
    fs.writeFileSync(target, 'outside\n')
    const root = tempDir()
    fs.linkSync(target, path.join(root, 'one.txt'))
    if (status.available) {
      const one = await run(root, 'echo changed > one.txt; cat one.txt')
      expect(one.spawnError).toBeUndefined()
      expect(fs.readFileSync(target, 'utf8')).toBe('outside\n')
    }
    for (let i = 0; i < MAX_PROJECT_MOUNTS + 10; i++) fs.linkSync(target, path.join(root, `l${i}`))
    const found = findProjectSecrets(root)
    expect(found.hardLinks.length).toBe(MAX_PROJECT_MOUNTS + 11)
    expect(() => bwrapArgs({ root, network: false, project: found })).toThrow(
      /would need 1,511 mounts for this project \(0 secrets files, 1,511 files hard-linked to names outside it, 0 git folders\); it takes at most 1,500\. Commands are refused until there are fewer: make hard-linked files plain copies/,
    )
    if (!status.available) return
    const refused = await run(root, 'echo changed > l3')
    expect(refused.spawnError).toMatch(/hard-linked to names outside it/)
    expect(fs.readFileSync(target, 'utf8')).toBe('outside\n')
  })
})
