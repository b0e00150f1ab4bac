import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { collectRipgrepLines, MAX_LINE_BYTES, runRipgrep } from './ripgrep'

describe('runRipgrep', () => {
  it('keeps at most MAX_LINE_BYTES of a line, however long ripgrep prints it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-rg-'))
    // 3× the cap on one line (a 143 MB one-line match was held whole, three times over).
    fs.writeFileSync(path.join(dir, 'one.txt'), 'needle' + 'a'.repeat(3 * MAX_LINE_BYTES) + '\nneedle 2\n')
    const lengths: number[] = []
    const run = await runRipgrep(['--no-filename', 'needle', 'one.txt'], {
      cwd: dir,
      onLine: (line) => (lengths.push(line.length), true),
    })
    expect(run.code).toBe(0)
    expect(lengths).toEqual([MAX_LINE_BYTES, 'needle 2'.length])
  })
})

describe('collectRipgrepLines', () => {
  it('lists the same files at a background priority as at normal priority', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-rg-'))
    for (const name of ['b.txt', 'a.txt', 'c.txt']) fs.writeFileSync(path.join(dir, name), name)
    const normal = await collectRipgrepLines(['--files', '--sort', 'path'], { cwd: dir })
    const background = await collectRipgrepLines(['--files', '--sort', 'path'], { cwd: dir, nice: 10 })
    expect(normal.lines).toEqual(['a.txt', 'b.txt', 'c.txt'])
    expect(background.lines).toEqual(normal.lines)
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
