import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openStore, STORE_FILE_NAME } from '../src/main/store/store'
import { buildCli, committedRepo, editArgs, runCli } from './cli-harness'
import { startFakeModelServer } from './fake-model-server'

/*
 * A store that fails, met through the real CLI the way a user meets it: a damaged file after a
 * crash (pages overwritten on disk, the killed process's open mark left behind), refused with the
 * way out, repaired by `stepwise doctor --repair`; a full disk (a tmpfs of a few MB, as
 * root) naming the folder and the fix.
 */

let CLI: string
let dataDir: string

beforeAll(() => {
  CLI = buildCli('stepwise-store-faults-e2e')
}, 240_000)

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-store-faults-cli-'))
})

afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true })
})

function recordSessions(dir: string, count: number): void {
  const store = openStore(dir)
  for (let s = 0; s < count; s++) {
    const row = store.createSession({ repo: '/p', title: `chat ${s}`, provider: 'ollama', model: 'm' })
    for (let e = 0; e < 30; e++)
      store.appendEvent(row.id, { type: 'user.message', text: `message ${e} `.repeat(40) })
  }
  store.close()
}

describe('a damaged store after a crash', () => {
  it('is refused with the way out, and `stepwise doctor --repair` makes it usable again', async () => {
    recordSessions(dataDir, 40)
    const file = path.join(dataDir, STORE_FILE_NAME)
    const fd = fs.openSync(file, 'r+')
    const page = 16384
    const middle = Math.floor(fs.statSync(file).size / page / 2)
    fs.writeSync(fd, Buffer.alloc(page, 0x5a), 0, page, middle * page)
    fs.closeSync(fd)
    // What `kill -9` of an earlier process leaves: its open mark, no process behind it.
    fs.mkdirSync(`${file}.open`, { recursive: true })
    fs.writeFileSync(path.join(`${file}.open`, '999999999'), '')

    const listed = await runCli(CLI, ['sessions', 'list', '--data-dir', dataDir])
    expect(listed.code).toBe(1)
    expect(listed.stderr).toContain(`The Stepwise database ${file} was found damaged`)
    expect(listed.stderr).toContain('stepwise doctor')

    const checked = await runCli(CLI, ['doctor', '--data-dir', dataDir])
    expect(checked.code).toBe(1)
    expect(checked.stdout).toContain(`${file}: damaged.`)
    expect(checked.stdout).toContain('stepwise doctor --repair')

    const repaired = await runCli(CLI, ['doctor', '--repair', '--data-dir', dataDir])
    expect(repaired.stderr).toBe('')
    expect(repaired.code).toBe(0)
    expect(repaired.stdout).toMatch(/Kept the damaged file as .*stepwise\.db\.damaged-/)
    expect(repaired.stdout).toMatch(/sessions: 40 rows recovered/)
    expect(repaired.stdout).toContain('is sound again')

    const again = await runCli(CLI, ['sessions', 'list', '--json', '--data-dir', dataDir])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toHaveLength(40)
  }, 60_000)
})

describe('a full disk', () => {
  const root = process.getuid?.() === 0
  let mounted = false
  afterEach(() => {
    if (mounted) execFileSync('umount', [dataDir])
    mounted = false
  })

  // A tmpfs needs root; as a user, the same message is covered in src/main/store/faults.test.ts
  // through SQLite's own size limit.
  it.runIf(root)(
    'names the data folder, the cause and the fix',
    async () => {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dataDir])
      mounted = true
      recordSessions(dataDir, 1)
      fs.writeFileSync(path.join(dataDir, 'filler'), Buffer.alloc(1)) // grown below until the disk is full
      try {
        for (;;) fs.appendFileSync(path.join(dataDir, 'filler'), Buffer.alloc(16384))
      } catch {
        // ENOSPC: the disk is full now
      }
      const before = await runCli(CLI, ['sessions', 'list', '--json', '--data-dir', dataDir])
      expect(before.stderr).toBe('')
      expect(before.code).toBe(0)
      const renamed = await runCli(CLI, [
        'sessions',
        'rename',
        JSON.parse(before.stdout)[0].id,
        'renamed',
        '--data-dir',
        dataDir,
      ])
      expect(renamed.code).toBe(1)
      expect(renamed.stderr).toContain(`The disk that holds the Stepwise data folder ${dataDir} is full`)
      expect(renamed.stderr).toContain(
        'Free some space on that disk, or point Stepwise at another data folder with --data-dir',
      )
      // What was saved before is still there.
      const after = await runCli(CLI, ['sessions', 'list', '--json', '--data-dir', dataDir])
      expect(JSON.parse(after.stdout)).toHaveLength(1)
    },
    60_000,
  )
})

describe('the daily backup for a user of the CLI alone', () => {
  it('is made after an `edit` session when none is a day old, and not again the same day', async () => {
    const repo = committedRepo('stepwise-backup-cli-', { 'greet.ts': 'export const greeting = "hello"\n' })
    const server = await startFakeModelServer({
      turns: [{ text: 'Nothing to do.' }, { text: 'Still nothing.' }],
    })
    try {
      const args = editArgs({ repo, dataDir, baseUrl: server.v1Url }, 'Say hi', '--approve', 'auto-edit')
      const first = await runCli(CLI, args)
      expect(first.stderr).toBe('')
      expect(first.code).toBe(0)
      const backups = path.join(dataDir, 'backups')
      const made = fs.readdirSync(backups)
      expect(made).toEqual([`stepwise-${new Date().toISOString().slice(0, 10)}.db`])
      // The copy is a store that opens and holds the session just run.
      const restored = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-backup-open-'))
      try {
        fs.copyFileSync(path.join(backups, made[0]), path.join(restored, STORE_FILE_NAME))
        const copy = openStore(restored)
        expect(copy.listSessions().map((row) => row.title)).toEqual(['Say hi'])
        copy.close()
      } finally {
        fs.rmSync(restored, { recursive: true, force: true })
      }
      const stamp = fs.statSync(path.join(backups, made[0])).mtimeMs
      expect((await runCli(CLI, args)).code).toBe(0)
      expect(fs.readdirSync(backups)).toEqual(made)
      expect(fs.statSync(path.join(backups, made[0])).mtimeMs).toBe(stamp)
    } finally {
      await server.close()
      fs.rmSync(repo, { recursive: true, force: true })
    }
  }, 60_000)
})
