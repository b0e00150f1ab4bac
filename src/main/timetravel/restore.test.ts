import { databaseOf } from '../store/handle'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { recordSession, readTree, writeFiles, type RecordedSession } from './restore-testing'
import { readTimeline, restoreSnapshot, rewindSession, undoSession, type RestoreOutcome } from './restore'

let repo: string
let dataDir: string
let store: Store
let s: RecordedSession
let seqs: number[]

const BASE = { 'a.txt': 'a0\n', 'src/b.ts': 'b0\n', 'src/deep/c.ts': 'c0\n' }

beforeEach(async () => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-restore-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-restore-data-'))
  writeFiles(repo, { ...BASE, '.env': 'SECRET=1\n', '.gitignore': 'build/\n', 'build/out.js': 'x\n' })
  store = openStore(dataDir)
  s = await recordSession(store, repo)
  seqs = [
    await s.change({ 'a.txt': 'a1\n' }),
    await s.change({ 'src/new.ts': 'new\n', 'src/deep/c.ts': null }),
    await s.change({ 'a.txt': 'a3\n', 'src/b.ts': 'b3\n' }),
  ]
  store.setSessionStatus(s.sessionId, 'done')
})

afterEach(() => {
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

/** The listed files (what snapshots cover); .env and build/ are checked separately. */
function project(): Record<string, string> {
  const t = readTree(repo)
  delete t['.env']
  delete t['.gitignore']
  delete t['build/out.js']
  return t
}

const AFTER_1 = { 'a.txt': 'a1\n', 'src/b.ts': 'b0\n', 'src/deep/c.ts': 'c0\n' }
const AFTER_2 = { 'a.txt': 'a1\n', 'src/b.ts': 'b0\n', 'src/new.ts': 'new\n' }
const AFTER_3 = { 'a.txt': 'a3\n', 'src/b.ts': 'b3\n', 'src/new.ts': 'new\n' }

function restored(o: RestoreOutcome) {
  if (o.status !== 'restored') throw new Error(`expected restored, got ${JSON.stringify(o)}`)
  return o
}

describe('rewind', () => {
  it('to the seq of session.started restores the baseline, and leaves ignored and denied files alone', async () => {
    expect(project()).toEqual(AFTER_3)
    const o = restored(await rewindSession(store, s.sessionId, s.startedSeq))
    expect(project()).toEqual(BASE)
    expect(fs.readFileSync(path.join(repo, '.env'), 'utf8')).toBe('SECRET=1\n')
    expect(fs.readFileSync(path.join(repo, 'build/out.js'), 'utf8')).toBe('x\n')
    expect(o.written.sort()).toEqual(['a.txt', 'src/b.ts', 'src/deep/c.ts'])
    expect(o.deleted).toEqual(['src/new.ts'])
    const last = store.listEvents(s.sessionId).at(-1)!
    expect(last).toEqual(o.event)
    expect(last).toMatchObject({
      type: 'checkpoint.restored',
      kind: 'rewind',
      toSeq: s.startedSeq,
      savedSnapshotId: o.savedSnapshotId,
      paths: ['a.txt', 'src/b.ts', 'src/deep/c.ts', 'src/new.ts'],
    })
  })

  it('to a middle step restores the files as they were right after it; folders emptied go too', async () => {
    restored(await rewindSession(store, s.sessionId, seqs[0]))
    expect(project()).toEqual(AFTER_1)
    restored(await rewindSession(store, s.sessionId, seqs[1]))
    expect(project()).toEqual(AFTER_2)
    expect(fs.existsSync(path.join(repo, 'src/deep'))).toBe(false)
    // A step between checkpoints means the last checkpoint before it.
    restored(await rewindSession(store, s.sessionId, seqs[1] + 0))
    expect(project()).toEqual(AFTER_2)
  })

  it('keeps the executable bit', async () => {
    fs.chmodSync(path.join(repo, 'a.txt'), 0o755)
    const seq = await s.change({ 'a.txt': 'a4\n' })
    restored(await rewindSession(store, s.sessionId, seqs[0]))
    expect(fs.statSync(path.join(repo, 'a.txt')).mode & 0o777).toBe(0o644 & ~process.umask())
    restored(await rewindSession(store, s.sessionId, seq))
    expect(fs.statSync(path.join(repo, 'a.txt')).mode & 0o777).toBe(0o755)
  })

  it('refuses a step out of range as a usage error, touching nothing', async () => {
    const last = store.listEvents(s.sessionId).at(-1)!.seq
    expect(await rewindSession(store, s.sessionId, last + 1)).toEqual({
      status: 'refused',
      reason: 'usage',
      message: `Step ${last + 1} is not in session ${s.sessionId}: its steps are 1 to ${last}.`,
    })
    expect(project()).toEqual(AFTER_3)
  })
})

describe('undo', () => {
  it('undoes the last change, then the one before, down to the baseline, then says nothing to undo', async () => {
    restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual(AFTER_2)
    restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual(AFTER_1)
    const o = restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual(BASE)
    expect(o.event).toMatchObject({ kind: 'undo', paths: ['a.txt'] })
    expect(await undoSession(store, s.sessionId)).toEqual({
      status: 'nothing',
      message: `Nothing to undo: session ${s.sessionId} changed no file.`,
    })
    expect(project()).toEqual(BASE)
  })

  it('right after a rewind brings back the files from before the rewind, then goes on', async () => {
    const rw = restored(await rewindSession(store, s.sessionId, s.startedSeq))
    expect(project()).toEqual(BASE)
    const un = restored(await undoSession(store, s.sessionId))
    expect(un.snapshotId).toBe(rw.savedSnapshotId)
    expect(project()).toEqual(AFTER_3)
    restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual(AFTER_2)
  })

  it('is taken back by a rewind to the step before it, and that rewind by an undo', async () => {
    const un = restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual(AFTER_2)
    restored(await rewindSession(store, s.sessionId, un.event.seq - 1))
    expect(project()).toEqual(AFTER_3)
    restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual(AFTER_2)
  })

  it('an empty checkpoint (a command that wrote nothing) is skipped', async () => {
    await s.change({})
    restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual(AFTER_2)
  })
})

describe('files changed outside the session', () => {
  it('are listed and left alone without confirm, and overwritten (recoverably) with it', async () => {
    writeFiles(repo, { 'a.txt': 'mine\n', 'src/mine.ts': 'mine\n' })
    const before = readTree(repo)
    const c = await rewindSession(store, s.sessionId, seqs[0])
    expect(c).toMatchObject({ status: 'conflict', conflicts: ['a.txt', 'src/mine.ts'] })
    expect(readTree(repo)).toEqual(before)
    expect(store.listEvents(s.sessionId).at(-1)!.type).toBe('checkpoint.created')

    restored(await rewindSession(store, s.sessionId, seqs[0], { confirm: true }))
    expect(project()).toEqual(AFTER_1)
    // The user's work is in the saved checkpoint: undo brings it back.
    restored(await undoSession(store, s.sessionId))
    expect(project()).toEqual({ ...AFTER_3, 'a.txt': 'mine\n', 'src/mine.ts': 'mine\n' })
  })

  it('an ignored file in the way of a restored one is a conflict', async () => {
    const seq = await s.change({ 'gen/x.txt': 'ours\n' })
    await s.change({ 'gen/x.txt': null })
    fs.writeFileSync(path.join(repo, '.gitignore'), 'build/\ngen/\n')
    writeFiles(repo, { 'gen/x.txt': 'theirs\n' })
    const c = await rewindSession(store, s.sessionId, seq)
    expect(c).toMatchObject({ status: 'conflict', conflicts: expect.arrayContaining(['gen/x.txt']) })
    expect(fs.readFileSync(path.join(repo, 'gen/x.txt'), 'utf8')).toBe('theirs\n')
  })
})

describe('faults', () => {
  it('a corrupt blob is reported by path and hash, and nothing is touched', async () => {
    const hash = databaseOf(store)
      .prepare<[], { hash: string }>('SELECT hash FROM blobs')
      .all()
      .map((r) => r.hash)
      .find((h) => h === sha('a1\n'))!
    databaseOf(store).prepare('UPDATE blobs SET data = ? WHERE hash = ?').run(Buffer.from('a2\n'), hash)
    const before = readTree(repo)
    const o = await rewindSession(store, s.sessionId, seqs[0])
    expect(o).toEqual({
      status: 'refused',
      reason: 'failed',
      message: `Snapshot data for a.txt (blob ${hash}) is corrupt: its content no longer matches its hash. Nothing was changed.`,
    })
    expect(readTree(repo)).toEqual(before)
    expect(
      databaseOf(store).prepare("SELECT COUNT(*) AS n FROM restore_journal WHERE state = 'pending'").get(),
    ).toEqual({
      n: 0,
    })
  })

  it('a missing blob likewise', async () => {
    const hash = sha('b3\n')
    restored(await rewindSession(store, s.sessionId, seqs[0]))
    // The undo of that rewind needs b3 back.
    databaseOf(store).pragma('foreign_keys = OFF')
    databaseOf(store).prepare('DELETE FROM blobs WHERE hash = ?').run(hash)
    const before = readTree(repo)
    const o = await undoSession(store, s.sessionId)
    expect(o).toMatchObject({ status: 'refused', reason: 'failed' })
    expect((o as { message: string }).message).toContain(`src/b.ts (blob ${hash}) is missing`)
    expect(readTree(repo)).toEqual(before)
  })

  it('refuses while the session runs, unless forced', async () => {
    store.setSessionStatus(s.sessionId, 'running')
    expect(await undoSession(store, s.sessionId)).toEqual({
      status: 'refused',
      reason: 'running',
      message: `Session ${s.sessionId} is running a turn in a live Stepwise process; stop it first (a session whose process is gone reads as interrupted and needs no --force).`,
    })
    expect(project()).toEqual(AFTER_3)
    restored(await undoSession(store, s.sessionId, { force: true }))
    expect(project()).toEqual(AFTER_2)
  })

  it('refuses a snapshot of another project', async () => {
    const other = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-restore-other-')))
    try {
      writeFiles(other, { 'z.txt': 'z\n' })
      const o = await recordSession(store, other)
      const baseline = readTimeline(store.listEvents(o.sessionId)).baselineSnapshotId!
      const r = await restoreSnapshot(store, { sessionId: s.sessionId, snapshotId: baseline, kind: 'rewind' })
      expect(r).toMatchObject({ status: 'refused', reason: 'failed' })
      expect(project()).toEqual(AFTER_3)
    } finally {
      fs.rmSync(other, { recursive: true, force: true })
    }
  })
})

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
