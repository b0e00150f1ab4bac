import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bwrapArgs, emptyPlaceholders } from '../sandboxing/bwrap'
import { createSandbox } from './sandbox'
import { secretInodes, sharesSecretInode } from './secret-links'

/*
 * A project file hard-linked to a credential (left by an earlier unconfined tool): real files,
 * real links, the real sandbox and bwrap arguments.
 */

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function layout(): { home: string; root: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-links-')))
  dirs.push(base)
  const home = path.join(base, 'home')
  const root = path.join(base, 'project')
  fs.mkdirSync(path.join(home, '.aws'), { recursive: true })
  fs.writeFileSync(path.join(home, '.aws', 'credentials'), 'aws_secret_access_key = AWSLINKED\n')
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true })
  fs.writeFileSync(path.join(root, '.env'), 'API_SECRET=ENVLINKED\n')
  fs.writeFileSync(path.join(root, 'plain.txt'), 'nothing secret\n')
  fs.linkSync(path.join(home, '.aws', 'credentials'), path.join(root, 'docs', 'notes.txt'))
  fs.linkSync(path.join(root, '.env'), path.join(root, 'config.txt'))
  // A hard link between two ordinary files stays readable.
  fs.linkSync(path.join(root, 'plain.txt'), path.join(root, 'plain-copy.txt'))
  return { home, root }
}

function withHome<T>(home: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.HOME
  process.env.HOME = home
  return fn().finally(() => {
    process.env.HOME = saved
  })
}

describe('hard links to secrets', () => {
  it('are found by inode: home credentials and project secrets, not ordinary links', () => {
    const { home, root } = layout()
    const inodes = secretInodes(home, [path.join(root, '.env')])
    expect(sharesSecretInode(path.join(root, 'docs', 'notes.txt'), inodes)).toBe(true)
    expect(sharesSecretInode(path.join(root, 'config.txt'), inodes)).toBe(true)
    expect(sharesSecretInode(path.join(root, 'plain-copy.txt'), inodes)).toBe(false)
    expect(sharesSecretInode(path.join(root, 'plain.txt'), inodes)).toBe(false)
  })

  it('follows a credential that is itself a link (a dotfile manager keeps it elsewhere)', () => {
    const { home, root } = layout()
    const store = path.join(path.dirname(home), 'dotfiles')
    fs.mkdirSync(store)
    fs.writeFileSync(path.join(store, 'id_ed25519'), 'KEY\n')
    fs.mkdirSync(path.join(home, '.ssh'))
    fs.symlinkSync(path.join(store, 'id_ed25519'), path.join(home, '.ssh', 'id_ed25519'))
    fs.linkSync(path.join(store, 'id_ed25519'), path.join(root, 'key.txt'))
    expect(sharesSecretInode(path.join(root, 'key.txt'), secretInodes(home, []))).toBe(true)
  })

  it('are refused by the file tools and left out of search', async () => {
    const { home, root } = layout()
    await withHome(home, async () => {
      const sandbox = await createSandbox(root)
      expect(sandbox.resolve('docs/notes.txt')).toEqual({ error: expect.stringContaining('a hard link') })
      expect(sandbox.resolve('config.txt')).toEqual({ error: expect.stringContaining('hard link') })
      expect(sandbox.resolve('plain-copy.txt')).toMatchObject({ rel: 'plain-copy.txt' })
      const lines: string[] = []
      await sandbox.ripgrep(['--no-heading', '--with-filename', '--null', '-e', 'LINKED|secret'], {
        onLine: (l) => (lines.push(l.toString()), true),
        fileOf: (l) => (l.includes(0) ? l.toString('utf8', 0, l.indexOf(0)) : undefined),
      })
      expect(lines.join('\n')).not.toMatch(/AWSLINKED|ENVLINKED/)
      expect(lines.join('\n')).toMatch(/plain/)
    })
  })

  it('are masked in the command sandbox; a link between two project files costs no mount', () => {
    const { home, root } = layout()
    const args = bwrapArgs({ root, home, network: false })
    const boundOver = (p: string) => {
      const i = args.findIndex((a, j) => a === p && args[j - 2] === '--ro-bind')
      return i > 0 ? args[i - 1] : undefined
    }
    expect(boundOver(path.join(root, 'docs', 'notes.txt'))).toBe(emptyPlaceholders().file)
    expect(boundOver(path.join(root, 'config.txt'))).toBe(emptyPlaceholders().file)
    // Both names of plain.txt are in the project: writing either writes the project, so no mount
    // (docs/sandbox.md#limits: links cost a mount only when a name lies outside the walk).
    expect(boundOver(path.join(root, 'plain-copy.txt'))).toBeUndefined()
  })
})
