import { databaseOf } from '../store/handle'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import { openStore } from '../store/store'
import { spawnNode, waitForExit } from '../store/testing/helpers'
import { createSnapshotter } from './snapshotter'
import { stateFileFor } from './savedState'
import { pushAll } from '../../shared/arrays'
import { snapshotTablesOf } from '../store/snapshot-tables'

/*
 * A snapshot killed half-way (SIGKILL from outside, while its new blobs are being
 * written): the snapshots before it are whole, no row names a blob that is not
 * stored, and the next process's snapshot captures the tree exactly.
 */

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function walk(root: string, dir = ''): string[] {
  const out: string[] = []
  for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name
    if (e.isDirectory()) pushAll(out, walk(root, rel))
    else out.push(rel)
  }
  return out.sort()
}

it('loses nothing when a snapshot is killed while it stores new blobs', async () => {
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-snapcrash-repo-')))
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-snapcrash-data-'))
  dirs.push(repo, dataDir)
  for (let i = 0; i < 50; i++) {
    fs.mkdirSync(path.join(repo, `d${i % 5}`), { recursive: true })
    fs.writeFileSync(path.join(repo, `d${i % 5}/f${i}.ts`), `export const v${i} = ${i}\n`.repeat(40))
  }
  const stateFile = stateFileFor(path.join(dataDir, 'snapshot-state'), repo, 'test')
  const wiring = (root: string) => ({ root, listFiles: async () => walk(root), stateFile })

  // A first snapshot, whole, taken by this process.
  let store = openStore(dataDir)
  const first = await createSnapshotter(snapshotTablesOf(store), wiring(repo)).takeSnapshot({
    sessionId: null,
  })
  store.close()

  // Then many new files, and a process that dies in the middle of storing them.
  for (let i = 0; i < 1200; i++) {
    fs.mkdirSync(path.join(repo, `n${i % 30}`), { recursive: true })
    fs.writeFileSync(path.join(repo, `n${i % 30}/g${i}.ts`), `// file ${i}\n${'let x = 1\n'.repeat(i % 200)}`)
  }
  const url = (rel: string) => JSON.stringify(pathToFileURL(path.join(import.meta.dirname, rel)).href)
  const source = `
    import fs from 'node:fs'
    import path from 'node:path'
    import { openStore } from ${url('../store/store.ts')}
    import { databaseOf } from ${url('../store/handle.ts')}
    import { createSnapshotter } from ${url('snapshotter.ts')}
    import { snapshotTablesOf } from ${url('../store/snapshot-tables.ts')}
    const walk = (root, dir = '') =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
        const rel = dir ? dir + '/' + e.name : e.name
        return e.isDirectory() ? walk(root, rel) : [rel]
      }).sort()
    const store = openStore(${JSON.stringify(dataDir)})
    const db = databaseOf(store)
    const prepare = db.prepare.bind(db)
    let stored = 0
    db.prepare = (sql) => {
      const st = prepare(sql)
      if (!sql.includes('INTO blobs')) return st
      const run = st.run.bind(st)
      st.run = (...args) => {
        if (++stored === 600) {
          console.log('storing blobs')
          // Hold here, mid-transaction, until the parent kills the process.
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000)
        }
        return run(...args)
      }
      return st
    }
    const root = ${JSON.stringify(repo)}
    await createSnapshotter(snapshotTablesOf(store), { root, listFiles: async () => walk(root), stateFile: ${JSON.stringify(stateFile)} })
      .takeSnapshot({ sessionId: null })
    console.log('not killed')
  `
  const { child } = await spawnNode(source, /^storing blobs$/, { tsSources: true })
  child.kill('SIGKILL')
  await waitForExit(child)
  expect(child.signalCode).toBe('SIGKILL')

  store = openStore(dataDir)
  try {
    expect(databaseOf(store).pragma('integrity_check', { simple: true })).toBe('ok')
    // Some blobs of the killed snapshot were committed, but no snapshot row names them.
    const blobs = databaseOf(store).prepare('SELECT COUNT(*) FROM blobs').pluck().get() as number
    expect(blobs).toBeGreaterThan(50)
    const snapshotter = createSnapshotter(snapshotTablesOf(store), wiring(repo))
    expect(snapshotter.listSnapshots().map((s) => s.id)).toEqual([first.info.id])
    for (const f of snapshotter.getManifest(first.info.id))
      expect(snapshotter.readFileAt(first.info.id, f.path)?.length).toBe(f.size)
    // Every hash the stat cache holds is stored: it is what the next snapshot trusts.
    const missing = databaseOf(store)
      .prepare('SELECT COUNT(*) FROM stat_cache WHERE hash NOT IN (SELECT hash FROM blobs)')
      .pluck()
      .get()
    expect(missing).toBe(0)

    const next = await snapshotter.takeSnapshot({ sessionId: null })
    const files = snapshotter.getManifest(next.info.id)
    expect(files.map((f) => f.path)).toEqual(walk(repo))
    for (const f of files)
      expect(snapshotter.readFileAt(next.info.id, f.path)).toEqual(fs.readFileSync(path.join(repo, f.path)))
  } finally {
    store.close()
  }
}, 120_000) // a child that compiles the TypeScript sources it runs: slow on a busy machine
