import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { spawnNode, waitForExit } from '../store/testing/helpers'
import { openDataFolder } from '../open-data-folder'
import { createGate } from './gate'
import { beginTempWrite, isStepwiseTemp, keepTempJournalIn, sweepTempWrites, tempPathFor } from './temp-files'

/*
 * A write killed between creating its temp file and renaming it (tools/apply.ts, a restore) left
 * `.NAME.<hex>.stepwise-tmp` in the project, where git shows it, after the next session too. Now the
 * journal names it, the next open of the data folder removes it and says so, and until then the
 * gate admits no such name (no listing, snapshot, index or search holds it).
 */

const dirs: string[] = []
const tmp = (prefix: string) => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  dirs.push(d)
  return d
}

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

/** A pid no process has now: one that ran and exited. */
const gonePid = () => spawnSync(process.execPath, ['-e', '0']).pid!

describe('temp files of interrupted writes', () => {
  it('are named one way, recognised, and refused by the gate', () => {
    const project = tmp('stepwise-temp-project-')
    const t = tempPathFor(path.join(project, 'src', 'a.ts'))
    expect(path.dirname(t)).toBe(path.join(project, 'src'))
    const rel = path.relative(project, t)
    expect(isStepwiseTemp(rel)).toBe(true)
    expect(isStepwiseTemp('src/.a.ts.stepwise-0a1b2c3d.tmp')).toBe(true) // restores' older name
    expect(isStepwiseTemp('src/a.ts')).toBe(false)
    expect(isStepwiseTemp('src/notes.stepwise-tmp.md')).toBe(false)
    expect(createGate(project).admitsName(rel)).toBe(false)
    expect(createGate(project).admitsName('src/a.ts')).toBe(true)
  })

  it('left by a killed process are removed at the next open of the data folder, which says so', () => {
    const project = tmp('stepwise-temp-project-')
    const dataDir = tmp('stepwise-temp-data-')
    const left = tempPathFor(path.join(project, 'big.json'))
    const finished = tempPathFor(path.join(project, 'done.json'))
    fs.writeFileSync(left, '{"half": ')
    fs.writeFileSync(finished, 'renamed since') // a name the journal says was done with: not ours to touch
    const mine = path.join(project, 'keep.txt')
    fs.writeFileSync(mine, 'user file')
    // The journal of a process that is gone: one write begun and never finished, one finished.
    fs.mkdirSync(path.join(dataDir, 'temp-writes'))
    fs.writeFileSync(
      path.join(dataDir, 'temp-writes', `${gonePid()}.log`),
      `+${left}\n+${finished}\n-${finished}\n+${mine}\n`,
    )
    const { store, notices } = openDataFolder(dataDir)
    store.close()
    expect(fs.existsSync(left)).toBe(false)
    expect(fs.existsSync(finished)).toBe(true)
    // A path that is not a temp file of ours is never removed, whatever a journal says.
    expect(fs.readFileSync(mine, 'utf8')).toBe('user file')
    expect(notices).toEqual([`Removed 1 temporary file an interrupted write left behind: ${left}.`])
    expect(fs.readdirSync(path.join(dataDir, 'temp-writes'))).toEqual([])
  })

  it('of a write SIGKILLed half-way are gone after the next open', async () => {
    const project = tmp('stepwise-temp-project-')
    const dataDir = tmp('stepwise-temp-data-')
    const url = pathToFileURL(path.join(import.meta.dirname, 'temp-files.ts')).href
    const source = `
      import fs from 'node:fs'
      import { beginTempWrite, keepTempJournalIn, tempPathFor } from ${JSON.stringify(url)}
      keepTempJournalIn(${JSON.stringify(dataDir)})
      const t = tempPathFor(${JSON.stringify(path.join(project, 'big.json'))})
      beginTempWrite(t)
      fs.writeFileSync(t, 'x'.repeat(672 * 1024))
      console.log('written ' + t)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000)
    `
    const { child, lines } = await spawnNode(source, /^written /, { tsSources: true })
    child.kill('SIGKILL')
    await waitForExit(child)
    const left = lines.find((l) => l.startsWith('written '))!.slice('written '.length)
    expect(fs.statSync(left).size).toBe(672 * 1024)
    const { store, notices } = openDataFolder(dataDir)
    store.close()
    expect(fs.existsSync(left)).toBe(false)
    expect(notices[0]).toContain(left)
  })

  it('of a process still running are left alone', () => {
    const project = tmp('stepwise-temp-project-')
    const dataDir = tmp('stepwise-temp-data-')
    keepTempJournalIn(dataDir)
    const t = tempPathFor(path.join(project, 'a.txt'))
    const write = beginTempWrite(t)
    fs.writeFileSync(t, 'in progress')
    expect(sweepTempWrites(dataDir)).toEqual([])
    expect(fs.existsSync(t)).toBe(true)
    write.done()
    expect(fs.readFileSync(path.join(dataDir, 'temp-writes', `${process.pid}.log`), 'utf8')).toBe(
      `+${t}\n-${t}\n`,
    )
  })
})
