import { databaseOf } from './handle'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DatabaseLockedError, DatabaseTooNewError, openDatabase, type Migration } from './db'
import { migrations } from './schema'
import { openStore } from './store'
import { spawnNode, sqliteBindingPath, tempDir, waitForExit } from './testing/helpers'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function dir(): string {
  const d = tempDir()
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }))
  return d
}

const v1: Migration = (db) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)')
const v2: Migration = (db) => {
  db.exec('ALTER TABLE notes ADD COLUMN tag TEXT')
  db.exec("UPDATE notes SET tag = 'migrated'")
}

describe('openDatabase', () => {
  it('creates the folder, turns on WAL and foreign keys, and migrates a fresh file to the latest version', () => {
    const file = path.join(dir(), 'nested', 'deeper', 'stepwise.db')
    const db = openDatabase(file, { migrations })
    try {
      expect(fs.existsSync(file)).toBe(true)
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
      expect(db.pragma('synchronous', { simple: true })).toBe(1) // NORMAL
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length)
      const tables = db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .pluck()
        .all()
      expect(tables).toEqual([
        'approval_rules',
        'blobs',
        'code_files',
        'code_index_memos',
        'code_index_roots',
        'events',
        'restore_journal',
        'rule_file_hashes',
        'sessions',
        'settings',
        'snapshots',
        'stat_cache',
        'traffic',
      ])
    } finally {
      db.close()
    }
  })

  it('upgrades a version-1 file step by step and keeps its data', () => {
    const file = path.join(dir(), 'x.db')
    const a = openDatabase(file, { migrations: [v1] })
    a.prepare('INSERT INTO notes (text) VALUES (?)').run('kept')
    a.close()

    const b = openDatabase(file, { migrations: [v1, v2] })
    expect(b.pragma('user_version', { simple: true })).toBe(2)
    expect(b.prepare('SELECT text, tag FROM notes').all()).toEqual([{ text: 'kept', tag: 'migrated' }])
    b.close()

    // Reopening at the same version runs nothing again.
    const c = openDatabase(file, { migrations: [v1, v2] })
    expect(c.prepare('SELECT text, tag FROM notes').all()).toEqual([{ text: 'kept', tag: 'migrated' }])
    c.close()
  })

  it('leaves the file at the last good version when a migration fails', () => {
    const file = path.join(dir(), 'x.db')
    const broken: Migration = (db) => {
      db.exec('CREATE TABLE half (id INTEGER)')
      throw new Error('boom')
    }
    expect(() => openDatabase(file, { migrations: [v1, broken] })).toThrow('boom')
    const db = openDatabase(file, { migrations: [v1] })
    expect(db.pragma('user_version', { simple: true })).toBe(1)
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0)
    db.close()
  })

  it('refuses a file from a newer schema and leaves it untouched', () => {
    const file = path.join(dir(), 'x.db')
    openDatabase(file, { migrations: [v1, v2] }).close()
    const before = fs.readFileSync(file)
    let error: unknown
    try {
      openDatabase(file, { migrations: [v1] })
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(DatabaseTooNewError)
    expect((error as Error).message).toBe(
      `The Stepwise database ${file} has schema version 2, but this build of Stepwise only knows versions up to 1: ` +
        'it was written by a newer Stepwise. Update Stepwise, or use a different data folder. The file was left untouched.',
    )
    expect(fs.readFileSync(file).equals(before)).toBe(true)
    const db = openDatabase(file, { migrations: [v1, v2] })
    expect(db.pragma('user_version', { simple: true })).toBe(2)
    db.close()
  })
})

describe('a second process holding the database', () => {
  it('fails with a clear error naming the file, and loses nothing that was committed', async () => {
    const dataDir = dir()
    const store = openStore(dataDir, { busyTimeoutMs: 100 })
    const session = store.createSession({ repo: '/repo', title: 't', provider: 'ollama', model: 'm' })
    const committed = [
      store.appendEvent(session.id, { type: 'user.message', text: 'one' }),
      store.appendEvent(session.id, { type: 'user.message', text: 'two' }),
    ]

    const locker = await spawnNode(
      `import { createRequire } from 'node:module'
       const Database = createRequire(import.meta.url)(${JSON.stringify(sqliteBindingPath)})
       const db = new Database(${JSON.stringify(store.path)})
       db.exec('BEGIN EXCLUSIVE')
       console.log('locked')
       setInterval(() => {}, 1000)`,
      /^locked$/,
    )
    try {
      const expected = new DatabaseLockedError(store.path).message
      expect(expected).toContain(store.path)
      expect(expected).toContain('another Stepwise')
      // Opening a second store on the same file…
      expect(() => openStore(dataDir, { busyTimeoutMs: 100 })).toThrow(expected)
      // …and writing from an already open one both fail with the same explanation.
      expect(() => store.appendEvent(session.id, { type: 'user.message', text: 'three' })).toThrow(expected)
    } finally {
      locker.child.kill('SIGKILL')
      await waitForExit(locker.child)
    }
    store.close()

    const reopened = openStore(dataDir)
    expect(reopened.listEvents(session.id)).toEqual(committed)
    expect(databaseOf(reopened).pragma('integrity_check', { simple: true })).toBe('ok')
    reopened.close()
  })
})
