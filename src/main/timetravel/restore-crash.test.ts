import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import { spawnNode, waitForExit } from '../store/testing/helpers'
import { openStore } from '../store/store'
import { recordSession, readTree, writeFiles } from './restore-testing'
import { recoverInterruptedRestores, undoSession } from './restore'

/*
 * A rewind killed half-way (SIGKILL from outside, between two files): the journal
 * stays pending, and recovery on the next open finishes it — the project ends up
 * exactly at the target, the event is recorded once, and the rewind can be undone.
 */

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const N = 20
const K = 7
const name = (i: number) => `src/f${String(i).padStart(2, '0')}.ts`

/** A recorded session whose rewind to its start was SIGKILLed after K of its files. */
async function killedRewind() {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-crash-repo-')))
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-crash-data-'))
  dirs.push(repo, dataDir)
  const base: Record<string, string> = {}
  const edited: Record<string, string> = {}
  for (let i = 0; i < N; i++) {
    base[name(i)] = `old ${i}\n`
    edited[name(i)] = `new ${i}\n`
  }
  writeFiles(repo, base)
  const store = openStore(dataDir)
  const s = await recordSession(store, repo)
  await s.change({ ...edited, 'src/added.ts': 'added\n' })
  store.setSessionStatus(s.sessionId, 'done')
  const eventsBefore = store.listEvents(s.sessionId).length
  store.close()

  const restoreUrl = pathToFileURL(path.join(import.meta.dirname, 'restore.ts')).href
  const storeUrl = pathToFileURL(path.join(import.meta.dirname, '..', 'store', 'store.ts')).href
  const source = `
    import { openStore } from ${JSON.stringify(storeUrl)}
    import { rewindSession } from ${JSON.stringify(restoreUrl)}
    const store = openStore(${JSON.stringify(dataDir)})
    await rewindSession(store, ${JSON.stringify(s.sessionId)}, ${s.startedSeq}, {
      onFile(n) {
        if (n !== ${K}) return
        console.log('paused after ' + n)
        // Hold here, between two files, until the parent kills the process.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000)
      },
    })
    console.log('not killed')
  `
  const { child } = await spawnNode(source, /^paused after 7$/, { tsSources: true })
  child.kill('SIGKILL')
  await waitForExit(child)
  expect(child.signalCode).toBe('SIGKILL')

  // Half-way: the deletion and some files are back, the rest not yet.
  const mid = readTree(repo)
  const restoredSoFar = Object.keys(base).filter((p) => mid[p] === base[p])
  expect(restoredSoFar.length).toBe(K - 1)
  expect(mid['src/added.ts']).toBeUndefined()
  return { repo, dataDir, s, base, edited, eventsBefore }
}

it('finishes a rewind a SIGKILL cut short, on the next open', async () => {
  const { repo, dataDir, s, base, edited, eventsBefore } = await killedRewind()
  const store = openStore(dataDir)
  try {
    const report = recoverInterruptedRestores(store)
    expect(report).toHaveLength(1)
    expect(report[0]).toMatchObject({ sessionId: s.sessionId, kind: 'rewind', toSeq: s.startedSeq })
    expect(report[0].error).toBeUndefined()
    expect(report[0].message).toMatch(
      new RegExp(`^${repo} was fully restored to checkpoint \\d+ \\(step ${s.startedSeq}\\) of session`),
    )
    expect(readTree(repo)).toEqual(base)
    const events = store.listEvents(s.sessionId)
    expect(events).toHaveLength(eventsBefore + 1)
    expect(events.at(-1)).toMatchObject({ type: 'checkpoint.restored', kind: 'rewind', toSeq: s.startedSeq })
    // Done: a second open finds nothing to recover.
    expect(recoverInterruptedRestores(store)).toEqual([])

    // And the rewind is undoable like any other.
    const undo = await undoSession(store, s.sessionId)
    expect(undo.status).toBe('restored')
    expect(readTree(repo)).toEqual({ ...edited, 'src/added.ts': 'added\n' })
  } finally {
    store.close()
  }
})

it('leaves a file changed by hand after the kill as it is, and says so, instead of replaying over it', async () => {
  const { repo, dataDir, s, base } = await killedRewind()
  // One file the rewind had already put back, one it had not reached: both fixed by hand since.
  fs.writeFileSync(path.join(repo, name(0)), 'fixed by hand 0\n')
  fs.writeFileSync(path.join(repo, name(N - 1)), 'fixed by hand 19\n')
  const store = openStore(dataDir)
  try {
    const [report] = recoverInterruptedRestores(store)
    expect(report.error).toBeUndefined()
    expect(report.message).toContain(`${name(0)}, ${name(N - 1)} changed after the rewind was cut short`)
    expect(readTree(repo)).toEqual({
      ...base,
      [name(0)]: 'fixed by hand 0\n',
      [name(N - 1)]: 'fixed by hand 19\n',
    })
    expect(store.listEvents(s.sessionId).at(-1)).toMatchObject({ type: 'checkpoint.restored' })
    expect(report.paths).not.toContain(name(0))
    expect(report.paths).not.toContain(name(N - 1))
  } finally {
    store.close()
  }
})
