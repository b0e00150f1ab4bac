import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createSandbox } from '../../containment/sandbox'
import { closeSnapshotters, snapshotterFor } from '../../session/start'
import { prefetchSavedState, takePrefetched } from '../../snapshot/earlyState'
import { stateFileIn } from '../../snapshot/savedState'
import { openStore } from '../../store/store'
import { tempDir } from '../../store/testing/helpers'
import { editTarget, prefetchForEdit } from './early'

/** A project a minute old (so no capture of it is racy) and a data folder. */
function project(): { root: string; dataDir: string } {
  const root = fs.realpathSync(tempDir('stepwise-early-'))
  fs.mkdirSync(path.join(root, 'src'))
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1\n')
  fs.writeFileSync(path.join(root, 'notes.md'), 'notes\n')
  const old = Math.floor(Date.now() / 1000) - 60
  for (const rel of ['src/a.ts', 'notes.md', 'src', '.']) fs.utimesSync(path.join(root, rel), old, old)
  return { root, dataDir: tempDir() }
}

/** One process's baseline, as a session takes it; the process ends as a CLI run does. */
async function baseline(root: string, dataDir: string) {
  const store = openStore(dataDir)
  try {
    const snapshotter = snapshotterFor(store, await createSandbox(root))
    return (await snapshotter.takeSnapshot({ sessionId: null })).info
  } finally {
    closeSnapshotters(store)
    store.close()
  }
}

describe("the CLI's head start on a baseline", () => {
  it("reads `stepwise edit`'s project and data folders as commander does, and nothing else", () => {
    const env = { STEPWISE_HOME: '/home/me/sw' }
    expect(editTarget(['edit', 'fix it', '--repo', '/p', '--data-dir', '/d'], env)).toEqual({
      repo: '/p',
      dataDir: '/d',
    })
    expect(editTarget(['edit', '--repo=/p', 'fix it', '--json'], env)).toEqual({
      repo: '/p',
      dataDir: '/home/me/sw',
    })
    expect(editTarget(['edit', 'fix it'], env)).toEqual({ repo: process.cwd(), dataDir: '/home/me/sw' })
    // After `--` everything is the task's.
    expect(editTarget(['edit', '--', '--repo', '/p'], env)?.repo).toBe(process.cwd())
    for (const other of [['serve', '--repo', '/p'], ['sessions', 'list'], []])
      expect(editTarget(other, env)).toBeUndefined()
  })

  it('prefetches nothing from a state file it cannot use', () => {
    const { root, dataDir } = project()
    const file = stateFileIn(dataDir, root, ['.env'])
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, 'not a state\n')
    prefetchSavedState(file, root)
    expect(takePrefetched(file, root)).toBeUndefined() // nothing usable was there
  })

  it("starts the stats the session's baseline then uses, dated when they started", async () => {
    const { root, dataDir } = project()
    const edit = ['edit', 'look around', '--repo', root, '--data-dir', dataDir]
    expect(prefetchForEdit(edit)).toBe(false) // nothing saved yet: a first baseline is ahead
    const first = await baseline(root, dataDir)
    expect(prefetchForEdit(['index', '--repo', root, '--data-dir', dataDir])).toBe(false)
    // A new process: the entry starts the stats, the program loads, the session takes its baseline.
    const before = Date.now()
    expect(prefetchForEdit(edit)).toBe(true) // a saved state: no first baseline in this process
    const after = Date.now()
    const file = stateFileIn(dataDir, root, (await createSandbox(root)).denyPatterns)
    expect(takePrefetched(file, `${root}/other`)).toBeUndefined() // not for another root
    await new Promise((resolve) => setTimeout(resolve, 100))
    const again = await baseline(root, dataDir)
    expect(again.manifestHash).toBe(first.manifestHash)
    expect(again.createdAt).toBeGreaterThanOrEqual(before)
    expect(again.createdAt).toBeLessThanOrEqual(after)
    // Taken once: nothing is left for a later snapshot.
    expect(takePrefetched(file, root)).toBeUndefined()
  })
})
