import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readWithFingerprint } from './fingerprint'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe('readWithFingerprint', () => {
  it('reads a regular file, and refuses at once what a command may leave in its place', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-fp-'))
    dirs.push(root)
    fs.writeFileSync(path.join(root, 'a.txt'), 'alpha\n')
    expect((await readWithFingerprint(path.join(root, 'a.txt')))?.data.toString()).toBe('alpha\n')
    expect(await readWithFingerprint(path.join(root, 'absent.txt'))).toBeNull()
    // A FIFO with no writer would block a plain open forever.
    execFileSync('mkfifo', [path.join(root, 'fifo')])
    await expect(readWithFingerprint(path.join(root, 'fifo'))).rejects.toMatchObject({
      code: 'not a regular file',
    })
    fs.mkdirSync(path.join(root, 'dir'))
    await expect(readWithFingerprint(path.join(root, 'dir'))).rejects.toMatchObject({ code: 'EISDIR' })
  })
})
