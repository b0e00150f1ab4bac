import { databaseOf } from './handle'
import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { REUSED_PID_MS, STALE_MS } from './liveness'
import { openStore } from './store'
import { spawnNode, storeModuleUrl, tempDir, waitForExit } from './testing/helpers'
import type { Store } from './types'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function freshStore(): { store: Store; dataDir: string } {
  const dataDir = tempDir()
  const store = openStore(dataDir)
  cleanups.push(() => {
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  return { store, dataDir }
}

const newSession = (store: Store) =>
  store.createSession({ repo: '/repo', title: 'Fix the bug', provider: 'openai', model: 'gpt-test' })

/** A child process that sets the session running and then waits (until killed). */
function runner(dataDir: string, sessionId: string) {
  return spawnNode(
    `import { openStore } from ${JSON.stringify(storeModuleUrl)}
     const store = openStore(${JSON.stringify(dataDir)})
     store.setSessionStatus(${JSON.stringify(sessionId)}, 'running')
     console.log('running')
     setInterval(() => {}, 1000)`,
    /^running$/,
    { tsSources: true },
  )
}

describe('session liveness', () => {
  it('a new session is idle, not running', () => {
    const { store } = freshStore()
    expect(newSession(store).status).toBe('idle')
    expect(store.listSessions()[0].status).toBe('idle')
  })

  it('running while its process lives; interrupted the moment it is killed (SIGKILL)', async () => {
    const { store, dataDir } = freshStore()
    const session = newSession(store)
    const child = await runner(dataDir, session.id)
    expect(store.getSession(session.id)?.status).toBe('running')
    expect(store.findSession(session.id.slice(0, 9))?.status).toBe('running')
    child.child.kill('SIGKILL')
    await waitForExit(child.child)
    // Nothing wrote the row since: the reader sees the owner gone.
    expect(store.getSession(session.id)?.status).toBe('interrupted')
    expect(store.listSessions()[0].status).toBe('interrupted')
    // Continuing it makes this process the owner again.
    store.setSessionStatus(session.id, 'running')
    expect(store.getSession(session.id)?.status).toBe('running')
    store.setSessionStatus(session.id, 'done')
    expect(store.getSession(session.id)?.status).toBe('done')
  })

  it('in the owning process, a row left running after its turn could not record its end reads as interrupted', () => {
    const { store, dataDir } = freshStore()
    const session = newSession(store)
    store.setSessionStatus(session.id, 'running')
    // Another connection in this same process (the row says this pid), not running it: as after a
    // turn whose end could not be written (a full disk).
    const other = openStore(dataDir)
    cleanups.push(() => other.close())
    expect(store.getSession(session.id)?.status).toBe('running')
    expect(other.getSession(session.id)?.status).toBe('interrupted')
  })

  it('a heartbeat long silent counts as gone whatever the pid (a reused pid); another host’s after a minute', async () => {
    const { store, dataDir } = freshStore()
    const session = newSession(store)
    const child = await runner(dataDir, session.id)
    cleanups.push(() => child.child.kill('SIGKILL'))
    expect(store.getSession(session.id)?.status).toBe('running')
    const age = (ms: number) =>
      databaseOf(store)
        .prepare('UPDATE sessions SET heartbeat_at = ? WHERE id = ?')
        .run(Date.now() - ms, session.id)
    // A busy thread on this host is not a dead process: the live pid still counts for minutes.
    age(STALE_MS + 1000)
    expect(store.getSession(session.id)?.status).toBe('running')
    age(REUSED_PID_MS + 1000)
    expect(store.getSession(session.id)?.status).toBe('interrupted')
    // Another host: nothing to check but the heartbeat.
    databaseOf(store).prepare("UPDATE sessions SET owner_host = 'elsewhere' WHERE id = ?").run(session.id)
    age(1000)
    expect(store.getSession(session.id)?.status).toBe('running')
    age(STALE_MS + 1000)
    expect(store.getSession(session.id)?.status).toBe('interrupted')
  })

  it('a row marked running by an older build (no owner) reads as interrupted', () => {
    const { store } = freshStore()
    const session = newSession(store)
    databaseOf(store).prepare("UPDATE sessions SET status = 'running' WHERE id = ?").run(session.id)
    expect(store.getSession(session.id)?.status).toBe('interrupted')
  })
})
