import { databaseOf } from '../src/main/store/handle'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DELETE_GRACE_MS } from '../src/main/service/sessions'
import { createBlobStore, sha256 } from '../src/main/snapshot/blobs'
import { decodeManifest } from '../src/main/snapshot/manifest'
import { openStore } from '../src/main/store/store'
import type { Store } from '../src/main/store/types'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from './fake-model-server'
import { answer, runTurn as runServiceTurn, startService, type CoreService } from './service-harness'
import { snapshotTablesOf } from '../src/main/store/snapshot-tables'

/** Deleting, restoring and renaming sessions through the app's protocol commands. */

let repo: string
let dataDir: string
let store: Store
let server: FakeModelServer
let service: CoreService

async function setup(turns: FakeTurn[]): Promise<void> {
  server = await startFakeModelServer({ turns, models: ['coder:1b'] })
  service = startService({ store, dataDir, baseUrl: server.url })
}

const call = <T = Record<string, unknown>>(command: string, input: unknown): Promise<T> =>
  answer<T>(service, command, input)
const runTurn = (sessionId: string, text: string): Promise<void> => runServiceTurn(service, sessionId, text)

const listed = async (): Promise<string[]> =>
  (await call<{ sessions: Array<{ id: string }> }>('session/list', {})).sessions.map((s) => s.id)

/** Every stored snapshot's manifests and files are still there (what a purge must never break). */
function brokenSnapshots(): string[] {
  const blobs = createBlobStore(snapshotTablesOf(store).blobs)
  const broken: string[] = []
  const rows = databaseOf(store).prepare('SELECT id, manifest_hash FROM snapshots').all() as Array<{
    id: number
    manifest_hash: string
  }>
  for (const row of rows) {
    for (let at: string | undefined = row.manifest_hash; at;) {
      if (!blobs.has(at)) {
        broken.push(`snapshot ${row.id}: manifest ${at}`)
        break
      }
      const m = decodeManifest(blobs.get(at))
      for (const f of m.kind === 'full' ? m.files : m.set)
        if (!blobs.has(f.hash)) broken.push(`snapshot ${row.id}: ${f.path}`)
      at = m.kind === 'delta' ? m.base : undefined
    }
  }
  return broken
}

const hasBlob = (content: string): boolean =>
  databaseOf(store).prepare('SELECT 1 FROM blobs WHERE hash = ?').get(sha256(content)) !== undefined

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-manage-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-manage-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n')
  store = openStore(dataDir)
})

afterEach(async () => {
  await service.close()
  await server.close()
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('session/delete, session/restore, session/rename', () => {
  it('renames, deletes softly, restores within the grace period, and purges after it', async () => {
    await setup([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'two\n' } }] },
      { text: 'Done.' },
    ])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await runTurn(sessionId, 'change a')
    const other = (await call<{ sessionId: string }>('session/create', { repo })).sessionId

    expect(await call('session/rename', { sessionId, title: '  Better title ' })).toEqual({ ok: true })
    expect(store.getSession(sessionId)?.title).toBe('Better title')
    const blank = await service.answer('session/rename', { sessionId, title: '   ' })
    expect(blank.ok).toBe(false)

    const before = Date.now()
    const deleted = await call<{ deleted: string[]; restorableUntil: number }>('session/delete', {
      sessionIds: [sessionId],
    })
    expect(deleted.deleted).toEqual([sessionId])
    expect(deleted.restorableUntil).toBeGreaterThanOrEqual(before + DELETE_GRACE_MS)
    expect(await listed()).toEqual([other])
    expect(store.findSession(sessionId)).toBeUndefined()

    expect(await call('session/restore', { sessionIds: [sessionId] })).toEqual({ restored: [sessionId] })
    expect((await listed()).sort()).toEqual([sessionId, other].sort())
    expect(store.listEvents(sessionId).some((e) => e.type === 'checkpoint.created')).toBe(true)

    await call('session/delete', { sessionIds: [sessionId] })
    // Not yet due: nothing is purged.
    service.sessions.purgeExpired(Date.now())
    expect(store.getSession(sessionId)).toBeDefined()
    const snapshots = () =>
      databaseOf(store).prepare('SELECT COUNT(*) FROM snapshots WHERE session_id = ?').pluck().get(sessionId)
    expect(snapshots()).not.toBe(0)
    service.sessions.purgeExpired(Date.now() + DELETE_GRACE_MS + 1)
    expect(store.getSession(sessionId)).toBeUndefined()
    expect(store.listEvents(sessionId)).toEqual([])
    expect(await call('session/restore', { sessionIds: [sessionId] })).toEqual({ restored: [] })
    expect(await listed()).toEqual([other])
  })

  it('purges the contents only the deleted session used, and leaves every other snapshot whole', async () => {
    const write = (content: string): FakeTurn => ({
      toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content } }],
    })
    const read: FakeTurn = { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] }
    await setup([
      read,
      write('alpha unique\n'),
      write('alpha second\n'),
      { text: 'A done' },
      read,
      write('beta\n'),
      { text: 'B done' },
    ])
    const a = (await call<{ sessionId: string }>('session/create', { repo })).sessionId
    await runTurn(a, 'A')
    const b = (await call<{ sessionId: string }>('session/create', { repo })).sessionId
    await runTurn(b, 'B')
    expect(hasBlob('alpha unique\n')).toBe(true)

    await call('session/delete', { sessionIds: [a] })
    service.sessions.purgeExpired(Date.now() + DELETE_GRACE_MS + 1)
    expect(store.getSession(a)).toBeUndefined()
    expect(hasBlob('alpha unique\n')).toBe(false)
    // B began from A's last state: that content stays, and B's timeline still works.
    expect(hasBlob('alpha second\n')).toBe(true)
    expect(brokenSnapshots()).toEqual([])
    expect(await call('session/undo', { sessionId: b })).toMatchObject({ status: 'restored' })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('alpha second\n')
  })

  it('keeps what a fork of the deleted session still names: the fork rewinds to its copied steps', async () => {
    const write = (content: string): FakeTurn => ({
      toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content } }],
    })
    await setup([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      write('alpha unique\n'),
      write('alpha second\n'),
      { text: 'done' },
    ])
    const parent = (await call<{ sessionId: string }>('session/create', { repo })).sessionId
    await runTurn(parent, 'A')
    const [first, second] = store
      .listEvents(parent)
      .filter((e) => e.type === 'checkpoint.created')
      .map((e) => e.seq)
    // Forked at the second change: the first one lives on only in the child's copied history.
    const { sessionId: child } = await call<{ sessionId: string }>('session/fork', {
      sessionId: parent,
      atSeq: second,
    })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('alpha second\n')
    fs.writeFileSync(path.join(repo, 'a.txt'), 'edited by hand\n')

    await call('session/delete', { sessionIds: [parent] })
    service.sessions.purgeExpired(Date.now() + DELETE_GRACE_MS + 1)
    expect(store.getSession(parent)).toBeUndefined()
    expect(store.getSession(child)?.parentId).toBeNull()
    expect(brokenSnapshots()).toEqual([])
    expect(await call('session/rewind', { sessionId: child, toSeq: first, confirm: true })).toMatchObject({
      status: 'restored',
    })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('alpha unique\n')
  })

  it('refuses to delete a session whose turn is running, and unknown ids', async () => {
    await setup([{ hang: true }])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('turn/start', { sessionId, text: 'hang' })
    const refused = await service.answer('session/delete', { sessionIds: [sessionId] })
    expect(!refused.ok && refused.error).toMatch(/running a turn: stop it/)
    const unknown = await service.answer('session/delete', { sessionIds: ['nope'] })
    expect(!unknown.ok && unknown.error).toMatch(/No session nope/)
    expect(await listed()).toEqual([sessionId])
  })

  it('purges at start the sessions deleted before a quit whose grace period is over', async () => {
    await setup([])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    store.markSessionsDeleted([sessionId], Date.now() - DELETE_GRACE_MS - 1)
    await service.close()
    await setup([])
    expect(store.getSession(sessionId)).toBeUndefined()
  })
})
