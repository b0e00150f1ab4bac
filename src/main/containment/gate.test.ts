import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createGate, isSecretName, projectRootWarning } from './gate'
import { createSandbox } from './sandbox'
import { createThreadedReads, SECRET_SKIP } from '../snapshot/readThreads'
import { secretContentKind } from './secret-content'

let tmp: string
let root: string
let home: string
let data: string

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-gate-')))
  root = path.join(tmp, 'project')
  home = path.join(tmp, 'home')
  data = path.join(tmp, 'data')
  for (const d of [root, home, data]) fs.mkdirSync(d)
})
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }))

const write = (rel: string, text: string, base = root) => {
  fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true })
  fs.writeFileSync(path.join(base, rel), text)
}
const gateOf = (r = root) => createGate(r, { home, dataDirs: [data] })
const readText = (rel: string, r = root) => {
  const g = gateOf(r)
  const file = g.resolve(rel)
  if ('error' in file) return file
  const read = g.read(file, { maxBytes: 1024 * 1024 })
  return 'error' in read ? read : read.data.toString('utf8')
}

const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n'

describe('the gate: names in any letter case', () => {
  it('denies .ENV, Server.PEM and ID_RSA as it denies .env, server.pem and id_rsa', () => {
    for (const rel of ['.ENV', 'config/Server.PEM', 'ID_RSA', '.Env.Local', 'keys/DEPLOY.KEY', 'PROD.ENV']) {
      write(rel, 'canary')
      expect(readText(rel), rel).toEqual({ error: expect.stringContaining('denied') })
      expect(isSecretName(rel), rel).toBe(true)
    }
    expect(isSecretName('src/environment.ts')).toBe(false)
  })

  it('denies the credential files other tools keep, at any depth', () => {
    for (const rel of [
      'infra/terraform.tfstate',
      'infra/terraform.tfstate.backup',
      'keys/server.ppk',
      'backup/.aws/credentials',
      'home/.docker/config.json',
      '.kube/config',
      '.ssh/deploy_key',
      'old/.config/gh/hosts.yml',
      '.pgpass',
    ]) {
      write(rel, 'canary')
      expect(readText(rel), rel).toEqual({ error: expect.stringContaining('denied') })
      expect(isSecretName(rel), rel).toBe(true)
    }
  })
})

// A command changed a file under node_modules/ (the event-stream case, 2018): review reads it there,
// where the file tools may not go; the secrets, links and locations rules hold all the same.
describe('the gate: a file under an ignored folder, read for review', () => {
  it('admits node_modules/ and dist/ files but no secret among them, nor a link out', () => {
    write('node_modules/left-pad/index.js', 'module.exports = pad\n')
    write('node_modules/left-pad/.env', 'API_KEY=x\n')
    write('dist/Server.PEM', PEM)
    fs.symlinkSync(path.join(home), path.join(root, 'node_modules/home'))
    const g = gateOf()
    const review = { inIgnoredFolder: true }
    expect(g.resolve('node_modules/left-pad/index.js')).toHaveProperty('error')
    expect(g.resolve('node_modules/left-pad/index.js', review)).toMatchObject({
      rel: 'node_modules/left-pad/index.js',
    })
    expect(g.admitsName('node_modules/left-pad/index.js')).toBe(false)
    expect(g.admitsName('node_modules/left-pad/index.js', review)).toBe(true)
    for (const secret of ['node_modules/left-pad/.env', 'dist/Server.PEM']) {
      expect(g.resolve(secret, review)).toHaveProperty('error')
      expect(g.admitsName(secret, review)).toBe(false)
    }
    expect(g.resolve('node_modules/home/x', review)).toHaveProperty('error')
  })
})

describe('the gate: links', () => {
  it('reads a link that stays inside and is not a secret', () => {
    write('src/a.ts', 'export const a = 1\n')
    fs.symlinkSync('src/a.ts', path.join(root, 'alias.ts'))
    expect(readText('alias.ts')).toBe('export const a = 1\n')
  })

  it('refuses a link out of the project and a link to a secret', () => {
    write('outside.txt', 'canary-outside', tmp)
    write('.env', 'canary-env')
    write('.ENV', 'canary-env-upper')
    fs.symlinkSync(path.join(tmp, 'outside.txt'), path.join(root, 'notes.md'))
    fs.symlinkSync('.env', path.join(root, 'readme.txt'))
    fs.symlinkSync('.ENV', path.join(root, 'upper.txt'))
    expect(readText('notes.md')).toEqual({ error: expect.stringContaining('outside the project') })
    expect(readText('readme.txt')).toEqual({ error: expect.stringContaining('denied') })
    expect(readText('upper.txt')).toEqual({ error: expect.stringContaining('denied') })
  })

  it('does not read through a file swapped for a link after it was resolved (as after indexing)', () => {
    write('src/a.ts', 'export const a = 1\n')
    write('secret.txt', 'canary-outside', tmp)
    const g = gateOf()
    const file = g.resolve('src/a.ts')
    if ('error' in file) throw new Error(file.error)
    fs.rmSync(file.abs)
    fs.symlinkSync(path.join(tmp, 'secret.txt'), file.abs)
    const read = g.read(file, { maxBytes: 1024 })
    expect(read).toEqual({ error: expect.stringContaining('replaced by a symbolic link') })
    // Judged again from its name, as search and find_references do: outside.
    expect(g.admits('src/a.ts')).toBe(false)
  })
})

describe('the gate: content', () => {
  const cases: Array<[string, string]> = [
    ['notes.txt', PEM],
    ['keys/backup', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n'],
    ['putty.txt', 'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n'],
    [
      'deploy.json',
      '{\n  "type": "service_account",\n  "project_id": "x",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\nMII"\n}\n',
    ],
    ['aws.ini', '[default]\naws_access_key_id = AKIA\naws_secret_access_key = canary\n'],
    ['cluster.yaml', 'apiVersion: v1\nusers:\n- name: u\n  user:\n    client-key-data: LS0tLS1CRUdJTg==\n'],
    ['ci.yaml', 'apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: canary\n'],
    ['registry.json', '{"auths": {"ghcr.io": {"auth": "dXNlcjpjYW5hcnk="}}}'],
    ['state.json', '{"version": 4, "terraform_version": "1.6.0", "serial": 3, "lineage": "abc"}'],
    ['hosts.yaml', 'github.com:\n    oauth_token: gho_canary\n    user: me\n'],
  ]
  it.each(cases)('refuses %s, a secret by what it holds', (rel, text) => {
    write(rel, text)
    expect(readText(rel)).toEqual({ error: expect.stringContaining('the sandbox denies it as a secret') })
    expect(gateOf().admits(rel, { content: true })).toBe(false)
  })

  it('lets ordinary code that talks about keys through', () => {
    const ordinary = [
      'const header = "-----BEGIN PUBLIC KEY-----"\n',
      'docker config: {"auths": {}, "credsStore": "desktop"}\n',
      'token: ${{ secrets.GITHUB_TOKEN }}\n',
      'def private_key(self): return self._key\n',
    ]
    for (const text of ordinary) expect(secretContentKind(Buffer.from(text)), text).toBeUndefined()
  })

  it('refuses special files and files over the limit', () => {
    write('big.txt', 'x'.repeat(2048))
    fs.mkdirSync(path.join(root, 'dir'))
    const g = gateOf()
    const big = g.resolve('big.txt')
    if ('error' in big) throw new Error(big.error)
    expect(g.read(big, { maxBytes: 1024 })).toEqual({ error: expect.stringContaining('too large') })
    const dir = g.resolve('dir')
    if ('error' in dir) throw new Error(dir.error)
    expect(g.read(dir, { maxBytes: 1024 })).toEqual({ error: expect.stringContaining('not a regular file') })
  })
})

describe('the gate: home credentials and the data folder, by absolute location', () => {
  it('denies them when the project is the home folder, whatever their names', () => {
    write('.aws/config', 'canary-aws-config', home)
    write('.ssh/config', 'canary-ssh-config', home)
    write('.config/stepwise/settings.json', 'canary', home)
    write('code/app.ts', 'export {}\n', home)
    const g = gateOf(home)
    expect(g.rootWarning).toContain('your home folder')
    expect(readText('.aws/config', home)).toEqual({ error: expect.stringContaining("user's credentials") })
    expect(readText('.ssh/config', home)).toEqual({ error: expect.stringContaining('denied') })
    expect(readText('code/app.ts', home)).toBe('export {}\n')
    expect(g.admitsName('.aws/config')).toBe(false)
    expect(g.admitsName('code/app.ts')).toBe(true)
  })

  it('denies the data folder inside a project, and warns', async () => {
    const inner = path.join(root, '.stepwise-data')
    write('.stepwise-data/credentials.json', '{"openai":"canary"}')
    write('src/a.ts', 'export {}\n')
    const g = createGate(root, { home, dataDirs: [inner] })
    expect(g.rootWarning).toContain("holds Stepwise's data folder")
    expect(g.resolve('.stepwise-data/credentials.json')).toEqual({
      error: expect.stringContaining("Stepwise's data folder"),
    })
    const sandbox = await createSandbox(root, { home, dataDirs: [inner] })
    expect((await sandbox.listFiles()).files).toEqual(['src/a.ts'])
    expect(sandbox.isIgnored('.stepwise-data')).toBe(true)
  })

  it('warns for /, home and a folder holding the data folder, and nothing else', () => {
    expect(projectRootWarning('/', home, [data])).toContain('the whole disk')
    expect(projectRootWarning(home, home, [data])).toContain('your home folder')
    expect(projectRootWarning(tmp, home, [data])).toContain('holds your home folder')
    expect(projectRootWarning(root, home, [data])).toBeUndefined()
  })
})

describe('search through the gate', () => {
  it('finds no canary in secrets named in any case, moved into credential folders, or secret by content', async () => {
    write('.ENV', 'API_KEY=canary-1')
    write('Server.PEM', 'canary-2')
    write('backup/.aws/credentials', 'canary-3')
    write('deploy.json', '{"private_key": "canary-4"}')
    write('infra/prod.tfstate', 'canary-5')
    write('src/app.ts', 'const ok = "canary-control"\n')
    const sandbox = await createSandbox(root, { home, dataDirs: [data] })
    const files: string[] = []
    await sandbox.ripgrep(['--no-heading', '--with-filename', '--null', '-F', '-e', 'canary'], {
      onLine: (line) => (files.push(line.toString('utf8', 0, line.indexOf(0))), true),
      fileOf: (line) => line.toString('utf8', 0, line.indexOf(0)),
    })
    // The control proves the search finds a canary when one is there.
    expect(files).toEqual(['src/app.ts'])
    expect((await sandbox.listFiles()).files).toEqual(['deploy.json', 'src/app.ts'])
  })
})

describe("the snapshot's reading threads apply the gate's content check and link rule", () => {
  it(
    'skip a key by content and a file swapped for a link, and read the rest',
    { timeout: 60_000 },
    async () => {
      write('notes.txt', PEM)
      write('src/a.ts', 'export const a = 1\n')
      write('outside.txt', 'canary-outside', tmp)
      fs.symlinkSync(path.join(tmp, 'outside.txt'), path.join(root, 'swapped.ts'))
      const reads = await createThreadedReads(root).read(['notes.txt', 'swapped.ts', 'src/a.ts'])
      expect(reads).toBeDefined()
      if (!reads) return
      expect(reads[0]).toEqual({ error: SECRET_SKIP })
      expect(reads[1]).toEqual({ error: 'ELOOP' })
      expect(reads[2]).toMatchObject({ size: 19 })
    },
  )
})
