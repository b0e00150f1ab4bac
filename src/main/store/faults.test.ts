import { databaseOf } from './handle'
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { backupStore, checkStore, repairStore } from './doctor'
import { StoreFailure } from './failures'
import { Database } from './sqlite'
import { openStore, STORE_FILE_NAME } from './store'
import type { Store } from './types'

/*
 * A store that fails says which file, why, and what to do; a damaged one is found after an
 * unclean end, refused, and repaired by `stepwise doctor` with every readable row kept. Real
 * SQLite files: a real size limit (SQLite's max_page_count fails exactly as a full disk does),
 * pages overwritten on disk, a read-only file system (as root: a tmpfs remounted read-only).
 */

let dataDir: string
const opened: Store[] = []

function open(dir = dataDir, opts: Parameters<typeof openStore>[1] = {}): Store {
  const store = openStore(dir, opts)
  opened.push(store)
  return store
}

function failureOf(fn: () => unknown): StoreFailure {
  try {
    fn()
  } catch (err) {
    if (err instanceof StoreFailure) return err
    throw err
  }
  throw new Error('expected a StoreFailure')
}

function record(store: Store, sessions: number, events: number): string[] {
  const ids: string[] = []
  for (let s = 0; s < sessions; s++) {
    const row = store.createSession({ repo: '/p', title: `chat ${s}`, provider: 'ollama', model: 'm' })
    ids.push(row.id)
    for (let e = 0; e < events; e++)
      store.appendEvent(row.id, { type: 'user.message', text: `message ${e} `.repeat(40) })
  }
  return ids
}

/** What an earlier process that was killed leaves: its open mark, with no process behind it. */
function leaveUncleanEnd(dir: string): void {
  const gone = spawnSync(process.execPath, ['-e', '0']).pid!
  const marks = path.join(dir, `${STORE_FILE_NAME}.open`)
  fs.mkdirSync(marks, { recursive: true })
  fs.writeFileSync(path.join(marks, String(gone)), '')
}

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-store-faults-'))
})

afterEach(() => {
  for (const s of opened.splice(0)) s.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('a full disk', () => {
  it('names the data folder and the fix, and keeps what was saved before', () => {
    const store = open()
    const [id] = record(store, 1, 3)
    const pages = databaseOf(store).pragma('page_count', { simple: true }) as number
    databaseOf(store).pragma(`max_page_count = ${pages + 2}`)
    const failure = failureOf(() => record(store, 1, 400))
    expect(failure.kind).toBe('full')
    expect(failure.message).toContain(`the Stepwise data folder ${dataDir} is full`)
    expect(failure.message).toMatch(
      /Free some space on that disk, or point Stepwise at another data folder with --data-dir/,
    )
    expect(failure.message).toContain('database or disk is full')
    expect(store.listEvents(id)).toHaveLength(3)
  })
})

describe('a damaged store', () => {
  function damage(): string[] {
    const store = open()
    const ids = record(store, 40, 30)
    store.close()
    const file = path.join(dataDir, STORE_FILE_NAME)
    const size = fs.statSync(file).size
    const fd = fs.openSync(file, 'r+')
    // Two pages in the middle of the events' b-tree, overwritten as a bad disk sector would.
    const page = 16384
    for (const at of [Math.floor(size / page / 2), Math.floor(size / page / 2) + 3])
      fs.writeSync(fd, Buffer.alloc(page, 0xa5), 0, page, at * page)
    fs.closeSync(fd)
    return ids
  }

  it('is found after an unclean end, refused with the way out, and stays refused', () => {
    damage()
    leaveUncleanEnd(dataDir)
    const failure = failureOf(() => open())
    expect(failure.kind).toBe('damaged')
    expect(failure.message).toContain(path.join(dataDir, STORE_FILE_NAME))
    expect(failure.message).toContain('stepwise doctor')
    // The next open, clean or not, refuses it too: nothing is written into a damaged file.
    expect(failureOf(() => open()).kind).toBe('damaged')
    expect(checkStore(dataDir)).toMatchObject({ verdict: 'damaged' })
  })

  it('is repaired by the doctor: the damaged file kept, every readable row copied, the store usable again', () => {
    const ids = damage()
    leaveUncleanEnd(dataDir)
    expect(() => open()).toThrow(StoreFailure)
    const repair = repairStore(dataDir)
    expect(fs.existsSync(repair.keptAs)).toBe(true)
    const events = repair.tables.find((t) => t.table === 'events')!
    const sessions = repair.tables.find((t) => t.table === 'sessions')!
    expect(sessions.copied).toBe(40)
    expect(events.copied).toBeGreaterThan(0)
    expect(events.copied).toBeLessThan(40 * 30)
    expect(checkStore(dataDir)).toMatchObject({ verdict: 'ok' })
    const store = open()
    expect(
      store
        .listSessions({ limit: 100 })
        .map((s) => s.id)
        .sort(),
    ).toEqual([...ids].sort())
    // New work goes on in the repaired file.
    const [fresh] = record(store, 1, 2)
    expect(store.listEvents(fresh)).toHaveLength(2)
  })
})

describe('a clean store after an unclean end', () => {
  it('passes the quick check and opens as usual', () => {
    record(open(), 2, 2)
    for (const s of opened.splice(0)) s.close()
    leaveUncleanEnd(dataDir)
    expect(open().listSessions()).toHaveLength(2)
  })
})

describe('a data folder this user cannot write', () => {
  const root = process.getuid?.() === 0
  let mounted = false

  afterEach(() => {
    for (const s of opened.splice(0)) s.close()
    if (mounted) execFileSync('umount', [dataDir])
    mounted = false
    if (!root) fs.chmodSync(dataDir, 0o700)
  })

  /** As root permissions are no obstacle: a read-only file system is. As a user, a folder of mode 555. */
  function makeReadOnly(): void {
    if (root) execFileSync('mount', ['-o', 'remount,ro', dataDir])
    else {
      for (const name of fs.readdirSync(dataDir)) fs.chmodSync(path.join(dataDir, name), 0o555)
      fs.chmodSync(dataDir, 0o555)
    }
  }

  it('still lists and shows its sessions, and a write says why it cannot and what to do', () => {
    if (root) {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dataDir])
      mounted = true
    }
    const [id] = record(open(), 1, 2)
    for (const s of opened.splice(0)) s.close()
    makeReadOnly()
    const store = open()
    expect(store.writable).toBe(false)
    expect(store.listSessions().map((s) => s.id)).toEqual([id])
    expect(store.listEvents(id)).toHaveLength(2)
    const failure = failureOf(() =>
      store.createSession({ repo: '/p', title: 't', provider: 'ollama', model: 'm' }),
    )
    expect(failure.kind).toBe('read-only')
    expect(failure.message).toContain(
      `The Stepwise database ${path.join(dataDir, STORE_FILE_NAME)} cannot be written`,
    )
    expect(failure.message).toMatch(root ? /read-only file system/ : /is not writable by/)
    expect(failure.message).toContain('Sessions can still be listed and shown')
  })
})

describe('the daily backup', () => {
  /** The sessions of a backup, opened from a folder of its own. */
  function sessionsIn(backup: string): number {
    const copyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-backup-open-'))
    try {
      fs.copyFileSync(backup, path.join(copyDir, STORE_FILE_NAME))
      return open(copyDir).listSessions().length
    } finally {
      fs.rmSync(copyDir, { recursive: true, force: true })
    }
  }

  it('copies the store once a day, keeps two, and the copy opens', async () => {
    const store = open()
    record(store, 2, 2)
    const day = 24 * 60 * 60 * 1000
    const t0 = Date.parse('2026-11-01T12:00:00Z')
    const first = await backupStore(store, dataDir, t0)
    expect(first).toBe(path.join(dataDir, 'backups', 'stepwise-2026-11-01.db'))
    fs.utimesSync(first!, new Date(t0), new Date(t0))
    expect(await backupStore(store, dataDir, t0 + day / 2)).toBeUndefined()
    await backupStore(store, dataDir, t0 + day)
    fs.utimesSync(
      path.join(dataDir, 'backups', 'stepwise-2026-11-02.db'),
      new Date(t0 + day),
      new Date(t0 + day),
    )
    await backupStore(store, dataDir, t0 + 2 * day)
    expect(fs.readdirSync(path.join(dataDir, 'backups')).sort()).toEqual([
      'stepwise-2026-11-02.db',
      'stepwise-2026-11-03.db',
    ])
    expect(sessionsIn(path.join(dataDir, 'backups', 'stepwise-2026-11-03.db'))).toBe(2)
  })

  it('copies a quiet store as a file while the store writes on, as it stood when the copy began', async () => {
    const store = open()
    record(store, 3, 2)
    const db = databaseOf(store)
    // The page-by-page API is for a store another connection is using (below).
    db.backup = () => Promise.reject(new Error('the backup API was used'))
    const pending = backupStore(store, dataDir) // the copy's read has begun when this returns
    record(store, 1, 1) // into the WAL, which cannot be folded into the file being copied
    const [folded] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>
    expect(folded.log).toBeGreaterThan(0)
    expect(folded.checkpointed).toBe(0)
    const copy = await pending
    expect(sessionsIn(copy!)).toBe(3)
    expect(store.listSessions()).toHaveLength(4)
    record(store, 1, 1)
    expect(store.listSessions()).toHaveLength(5)
  })

  it('copies what the WAL still holds while another connection reads an older state', async () => {
    const store = open()
    record(store, 2, 2)
    // A reader elsewhere (the app beside the CLI) keeps the WAL from being checkpointed: the
    // store's file alone then lacks the newest writes, and a copy of it would lose them.
    const reader = new Database(path.join(dataDir, STORE_FILE_NAME))
    try {
      reader.exec('BEGIN')
      reader.prepare('SELECT count(*) FROM sessions').pluck().get()
      record(store, 3, 2)
      const started = Date.now()
      const copy = await backupStore(store, dataDir)
      expect(Date.now() - started).toBeLessThan(2500) // not the store's 3 s lock timeout
      expect(sessionsIn(copy!)).toBe(5)
    } finally {
      reader.close()
    }
  })
})
