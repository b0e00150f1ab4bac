import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore, STORE_FILE_NAME } from '../store/store'
import { adoptLegacyDatabase, dataDirFlag, desktopDataDir } from './data-move'

let root: string
let legacy: string
let shared: string

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-move-')))
  legacy = path.join(root, 'config', 'stepwise')
  shared = path.join(root, 'share', 'stepwise')
  fs.mkdirSync(legacy, { recursive: true })
})

afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

/**
 * An old app's database left as a killed process leaves it: committed events still in the
 * -wal file, not checkpointed into the main file.
 */
function leaveLegacyDatabase(sessions: number): void {
  const store = openStore(legacy)
  store.close() // migrated; the child below writes without ever closing
  const script = `
    const Database = require('better-sqlite3')
    const db = new Database(${JSON.stringify(path.join(legacy, STORE_FILE_NAME))})
    db.pragma('journal_mode = WAL')
    db.pragma('wal_autocheckpoint = 0')
    for (let i = 0; i < ${sessions}; i++) {
      db.prepare("INSERT INTO sessions (id, repo, title, provider, model, status, created_at, updated_at) VALUES (?, '/r', ?, 'ollama', 'm', 'done', 1, 1)").run('s' + i, 'Task ' + i)
      db.prepare("INSERT INTO events (session_id, seq, ts, type, payload) VALUES (?, 1, 1, 'user.message', '{\\"text\\":\\"hi\\"}')").run('s' + i)
    }
    process.exit(0)
  `
  const ran = spawnSync(process.execPath, ['-e', script], { cwd: process.cwd(), encoding: 'utf8' })
  expect(ran.stderr).toBe('')
  expect(fs.statSync(path.join(legacy, `${STORE_FILE_NAME}-wal`)).size).toBeGreaterThan(0)
}

describe('moving the desktop app’s old database into the shared folder', () => {
  it('moves it with what its -wal file held, keeps the old file aside, and says so once', () => {
    leaveLegacyDatabase(3)
    fs.writeFileSync(path.join(legacy, 'keys.enc.json'), '{"openai":"sealed"}')
    const first = desktopDataDir(legacy, ['electron', '.'], {
      HOME: root,
      XDG_DATA_HOME: path.join(root, 'share'),
    })
    expect(first.dataDir).toBe(shared)
    expect(first.notices).toHaveLength(1)
    expect(first.notices[0]).toMatch(/Moved your sessions \(3 sessions, 3 events\)/)
    expect(fs.existsSync(path.join(legacy, STORE_FILE_NAME))).toBe(false)
    expect(fs.existsSync(path.join(legacy, `${STORE_FILE_NAME}-wal`))).toBe(false)
    expect(fs.existsSync(path.join(legacy, `${STORE_FILE_NAME}.moved`))).toBe(true)
    expect(fs.readFileSync(path.join(shared, 'keys.enc.json'), 'utf8')).toBe('{"openai":"sealed"}')
    expect(fs.readdirSync(shared).filter((f) => f.includes('.moving-'))).toEqual([])

    const store = openStore(shared)
    try {
      expect(
        store
          .listSessions()
          .map((s) => s.title)
          .sort(),
      ).toEqual(['Task 0', 'Task 1', 'Task 2'])
      expect(store.listEvents('s1')).toMatchObject([{ type: 'user.message', text: 'hi' }])
      store.createSession({ repo: '/r', title: 'after the move', provider: 'ollama', model: 'm' })
    } finally {
      store.close()
    }
    // The second start finds the new database: nothing to say, nothing touched.
    const second = desktopDataDir(legacy, ['electron'], {
      HOME: root,
      XDG_DATA_HOME: path.join(root, 'share'),
    })
    expect(second).toEqual({ dataDir: shared, notices: [] })
  })

  it('leaves a database another process has open where it is, and keeps using it for this run', () => {
    leaveLegacyDatabase(1)
    const other = openStore(legacy)
    try {
      const result = desktopDataDir(legacy, [], { HOME: root, XDG_DATA_HOME: path.join(root, 'share') })
      expect(result.dataDir).toBe(legacy)
      expect(result.notices[0]).toMatch(/another Stepwise has them open/)
      expect(fs.existsSync(path.join(shared, STORE_FILE_NAME))).toBe(false)
      // The other process goes on writing, unharmed.
      other.appendEvent('s0', { type: 'user.message', text: 'still here' })
      expect(other.listEvents('s0')).toHaveLength(2)
    } finally {
      other.close()
    }
    // Once it is closed, the next start moves it.
    expect(adoptLegacyDatabase(legacy, shared).kind).toBe('moved')
  })

  it('moves nothing when the shared folder has a database, is the same folder, or is chosen', () => {
    leaveLegacyDatabase(1)
    openStore(shared).close()
    expect(adoptLegacyDatabase(legacy, shared)).toEqual({ kind: 'none' })
    // A case-insensitive disk shows one folder under two names: a link stands in for that here.
    const alias = path.join(root, 'alias')
    fs.symlinkSync(legacy, alias)
    expect(adoptLegacyDatabase(legacy, alias)).toEqual({ kind: 'none' })
    const chosen = path.join(root, 'chosen')
    expect(desktopDataDir(legacy, ['--data-dir', chosen], { HOME: root }).dataDir).toBe(chosen)
    expect(desktopDataDir(legacy, [], { HOME: root, STEPWISE_HOME: chosen })).toEqual({
      dataDir: chosen,
      notices: [],
    })
    expect(fs.existsSync(path.join(legacy, STORE_FILE_NAME))).toBe(true)
  })

  it('reads --data-dir in both spellings', () => {
    expect(dataDirFlag(['app', '--data-dir', '/x'])).toBe('/x')
    expect(dataDirFlag(['app', '--data-dir=/y'])).toBe('/y')
    expect(dataDirFlag(['app'])).toBeUndefined()
  })
})
