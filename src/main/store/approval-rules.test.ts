import { databaseOf } from './handle'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from './db'
import { migrations } from './schema'
import { openStore, STORE_FILE_NAME } from './store'
import { tempDir } from './testing/helpers'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

function dir(): string {
  const d = tempDir()
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }))
  return d
}

describe('approval rules in the store', () => {
  it('keeps session rules with their session and project rules with their project, without duplicates', () => {
    const store = openStore(dir())
    try {
      const a = store.createSession({ repo: '/p', title: 'a', provider: 'ollama', model: 'm' })
      const b = store.createSession({ repo: '/p', title: 'b', provider: 'ollama', model: 'm' })
      const npm = { kind: 'command' as const, words: ['npm', 'test'], exact: false }
      const s = store.approvals.addRule({ scope: 'session', project: '/p', sessionId: a.id, pattern: npm })
      expect(
        store.approvals.addRule({ scope: 'session', project: '/p', sessionId: a.id, pattern: npm }).id,
      ).toBe(s.id)
      const p = store.approvals.addRule({
        scope: 'project',
        project: '/p',
        pattern: { kind: 'mcp', server: 'gh', tool: 't' },
      })
      store.approvals.addRule({ scope: 'project', project: '/other', pattern: npm })
      expect(store.approvals.listRules('/p', a.id).map((r) => r.id)).toEqual([s.id, p.id])
      expect(store.approvals.listRules('/p', b.id).map((r) => r.id)).toEqual([p.id])
      expect(store.approvals.listRules('/p').map((r) => r.id)).toEqual([p.id])
      expect(() => store.approvals.addRule({ scope: 'session', project: '/p', pattern: npm })).toThrow(
        /session id/,
      )
      expect(() =>
        store.approvals.addRule({
          scope: 'project',
          project: '/p',
          pattern: { kind: 'command', words: [], exact: true },
        }),
      ).toThrow()
      expect(store.approvals.removeRule(p.id)).toBe(true)
      expect(store.approvals.removeRule(p.id)).toBe(false)
      store.markSessionsDeleted([a.id])
      databaseOf(store).prepare('DELETE FROM sessions WHERE id = ?').run(a.id)
      expect(store.approvals.getRule(s.id)).toBeUndefined()
    } finally {
      store.close()
    }
  })

  it('rewrites approvals stored before the one subject shape', () => {
    const data = dir()
    const file = path.join(data, STORE_FILE_NAME)
    const old = openDatabase(file, { migrations: migrations.slice(0, -1) })
    const payloads = [
      {
        callId: 'f',
        tool: 'edit_file',
        change: { path: 'a', kind: 'modify', diff: 'd', before: 'x', after: null },
      },
      { callId: 'c', tool: 'run_command', command: { command: 'npm test', cwd: '/p' } },
      { callId: 'k', tool: 'write_file', conflict: { path: 'a', message: 'changed' } },
      { callId: 'm', tool: 'mcp__gh__t', mcp: { server: 'gh', tool: 't', args: { n: 1 } } },
      { callId: 'g', tool: 'git_commit' },
    ]
    old
      .prepare(
        "INSERT INTO sessions (id, repo, title, provider, model, status, created_at, updated_at) VALUES ('s', '/p', 't', 'ollama', 'm', 'done', 1, 1)",
      )
      .run()
    payloads.forEach((p, i) =>
      old
        .prepare(
          "INSERT INTO events (session_id, seq, ts, type, payload) VALUES ('s', ?, 1, 'approval.requested', ?)",
        )
        .run(i + 1, JSON.stringify(p)),
    )
    old.close()
    const store = openStore(data)
    try {
      expect(store.listEvents('s').map((e) => e)).toEqual([
        expect.objectContaining({
          subject: { kind: 'file', path: 'a', change: 'modify', diff: 'd', before: 'x', after: null },
        }),
        expect.objectContaining({
          subject: { kind: 'command', command: 'npm test', cwd: '/p', verdict: 'ask' },
        }),
        expect.objectContaining({ subject: { kind: 'conflict', path: 'a', message: 'changed' } }),
        expect.objectContaining({ subject: { kind: 'mcp', server: 'gh', tool: 't', args: { n: 1 } } }),
        expect.objectContaining({
          subject: { kind: 'command', command: 'git_commit', cwd: '', verdict: 'ask' },
        }),
      ])
      for (const e of store.listEvents('s')) expect(Object.keys(e)).not.toContain('change')
    } finally {
      store.close()
    }
  })
})
