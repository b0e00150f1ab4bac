import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { historiesWithSecrets } from './git-history'
import { runCommand } from './runner'
import { sandboxStatus } from './sandbox-probe'

/*
 * Secrets in git history (docs/sandbox.md#secrets-in-git-history): a secrets file committed
 * once and removed since can be printed by a test script in any encoding. The object store
 * of such a repository is hidden from sandboxed commands, so no shape of the value comes out.
 */

const status = sandboxStatus()

function tempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-history-')))
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, encoding: 'utf8' })

const DOTENV_VALUE = 'histsecret4f2a9c'
const JSON_TOKEN = 'jsontok7e1b3d55'

/** A repository whose first commit holds `.env` and a JSON token file, both removed by the second. */
function repoWithSecretHistory(): string {
  const root = tempDir()
  git(root, 'init', '-q')
  fs.writeFileSync(path.join(root, 'README.md'), '# app\n')
  fs.writeFileSync(path.join(root, '.env'), `API_KEY=${DOTENV_VALUE}\n`)
  fs.writeFileSync(path.join(root, 'deploy.key'), JSON.stringify({ type: 'token', token: JSON_TOKEN }))
  git(root, 'add', '-A')
  git(root, 'commit', '-qm', 'first')
  git(root, 'rm', '-q', '--cached', '.env', 'deploy.key')
  git(root, 'commit', '-qm', 'untrack the secrets')
  return root
}

/** Every shape a script might print the values in. */
function shapes(value: string): string[] {
  const b = Buffer.from(value)
  return [
    value,
    b.toString('hex'),
    b.toString('base64').replace(/=+$/, ''),
    [...value].reverse().join(''),
    Buffer.from(`API_KEY=${value}`).toString('base64').replace(/=+$/, ''),
  ]
}

const DECODERS = [
  'git show HEAD~1:.env | xxd -p',
  'git show HEAD~1:.env | rev',
  'git show HEAD~1:.env | base64',
  'git show HEAD~1:deploy.key',
  'git show HEAD~1:deploy.key | rev',
  'git cat-file --batch-all-objects --batch',
  'git log -p --all | od -c',
  'cat .git/objects/pack/* .git/objects/??/* 2>/dev/null | zlib-flate -uncompress 2>/dev/null; echo',
]

describe('a history that holds a secrets file', () => {
  it('is found through refs, reflogs and the index, whatever the letter case', async () => {
    const root = repoWithSecretHistory()
    const [hidden] = await historiesWithSecrets([path.join(root, '.git')])
    expect(hidden.objects).toBe(path.join(root, '.git', 'objects'))
    expect(hidden.files.sort()).toEqual(['.env', 'deploy.key'])
    expect(hidden.why).toBe('its history holds the secrets file `.env`, `deploy.key`')

    const clean = tempDir()
    git(clean, 'init', '-q')
    fs.writeFileSync(path.join(clean, 'a.txt'), 'a\n')
    fs.writeFileSync(path.join(clean, '.env.example'), 'API_KEY=\n')
    git(clean, 'add', '-A')
    git(clean, 'commit', '-qm', 'a')
    expect(await historiesWithSecrets([path.join(clean, '.git')])).toEqual([])
    // Staged only, then committed under another letter case and amended away: still found.
    fs.writeFileSync(path.join(clean, 'Server.PEM'), 'pem\n')
    git(clean, 'add', 'Server.PEM')
    expect((await historiesWithSecrets([path.join(clean, '.git')]))[0]?.files).toEqual(['Server.PEM'])
    git(clean, 'commit', '-qm', 'pem')
    git(clean, 'rm', '-q', '--cached', 'Server.PEM')
    git(clean, 'commit', '-q', '--amend', '--allow-empty', '-m', 'no pem')
    expect((await historiesWithSecrets([path.join(clean, '.git')]))[0]?.files).toEqual(['Server.PEM'])
  })

  it.runIf(status.available)(
    'gives a test script nothing of it, in any encoding, and says why git fails',
    async () => {
      const root = repoWithSecretHistory()
      const script = DECODERS.join('; echo; ')
      const run = await runCommand({
        command: script,
        cwd: root,
        timeoutMs: 30_000,
        sandbox: { network: false },
      })
      for (const value of [DOTENV_VALUE, JSON_TOKEN])
        for (const shape of shapes(value)) expect(run.output).not.toContain(shape)
      expect(run.output).toMatch(/fatal:/)
      expect(run.notes).toEqual([
        '`.git/objects` is hidden from commands: its history holds the secrets file `.env`, `deploy.key`. git commands fail here (`fatal: bad object HEAD`); use the git tools (git_status, git_log, git_show, git_diff). To lift it, remove the file from the history (git filter-repo), expire the reflog, prune, and rotate the secret.',
      ])
      // The control: unsandboxed, the same script prints the value in every shape.
      const bare = await runCommand({
        command: DECODERS.slice(0, 5).join('; echo; '),
        cwd: root,
        timeoutMs: 30_000,
      })
      expect(bare.output).toContain(Buffer.from(`API_KEY=${DOTENV_VALUE}\n`).toString('hex'))
      expect(bare.output).toContain([...DOTENV_VALUE].reverse().join(''))
      expect(bare.output).toContain([...JSON_TOKEN].reverse().join(''))
    },
  )

  it.runIf(status.available)('leaves git whole in a repository whose history holds none', async () => {
    const root = tempDir()
    git(root, 'init', '-q')
    fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n')
    git(root, 'add', '-A')
    git(root, 'commit', '-qm', 'first')
    fs.writeFileSync(path.join(root, '.env'), 'API_KEY=untracked-value\n')
    const run = await runCommand({
      command: 'git log --oneline && git show HEAD:a.txt',
      cwd: root,
      timeoutMs: 30_000,
      sandbox: { network: false },
    })
    expect(run.output).toMatch(/first\nalpha\n$/)
    expect(run.notes).toBeUndefined()
  })
})
