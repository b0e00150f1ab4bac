import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createSandbox } from '../containment/sandbox'
import { tempDir } from '../store/testing/helpers'
import { listUnignoredDirectories } from './directories'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

describe('listUnignoredDirectories', () => {
  it('finds every directory the sandbox does not ignore, empty or holding only ignored files', async () => {
    const root = fs.realpathSync(tempDir('stepwise-dirs-'))
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
    const files: Record<string, string> = {
      '.gitignore': 'build/\n*.log\n',
      'src/a.ts': 'a',
      'src/deep/er/b.ts': 'b',
      'logs/x.log': 'x',
      'build/out/c.js': 'c',
      'node_modules/p/index.js': 'p',
      '.git/HEAD': 'ref',
    }
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
      fs.writeFileSync(path.join(root, rel), content)
    }
    fs.mkdirSync(path.join(root, 'empty/inner'), { recursive: true })
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'linked'))
    const sandbox = await createSandbox(root)

    const dirs = await listUnignoredDirectories(root, (rel) => sandbox.isIgnored(rel))
    expect(dirs.sort()).toEqual(['', 'empty', 'empty/inner', 'logs', 'src', 'src/deep', 'src/deep/er'])
  })

  it('returns just the root for a root it cannot read', async () => {
    const missing = path.join(tempDir('stepwise-dirs-'), 'gone')
    cleanups.push(() => fs.rmSync(path.dirname(missing), { recursive: true, force: true }))
    expect(await listUnignoredDirectories(missing, () => false)).toEqual([''])
  })
})
