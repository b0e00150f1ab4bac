import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { HostMessage } from '../../shared/protocol'
import { answer, startService, type CoreService } from '../../../test/service-harness'
import { forkFixture, type ForkFixture } from '../timetravel/fork-test-support'

// The app's fork dialog through the core service: the worktree is the core's choice of folder,
// never the renderer's; the reply names the fork's folder and title.

let f: ForkFixture
let service: CoreService
let messages: HostMessage[]

beforeEach(() => {
  f = forkFixture()
  // No model runs here: a fork waits for the next message.
  service = startService({ store: f.store, dataDir: f.dataDir, baseUrl: 'http://127.0.0.1:9/' })
  messages = []
  service.subscribe((m) => messages.push(m))
})

afterEach(async () => {
  await service.close()
  f.close()
  fs.rmSync(`${f.repo}-fork-1`, { recursive: true, force: true })
})

describe('session/fork', () => {
  it('forks the files and the conversation into a worktree beside the repository, on the chosen model', async () => {
    const parent = await f.parentSession()
    const reply = await answer<{ sessionId: string; repo: string; title: string }>(service, 'session/fork', {
      sessionId: parent.sessionId,
      atSeq: parent.afterFirst,
      where: 'worktree',
      provider: 'ollama',
      model: 'qwen3:8b',
    })
    expect(reply).toEqual({ sessionId: reply.sessionId, repo: `${f.repo}-fork-1`, title: 'Fork of count up' })
    expect(fs.readFileSync(path.join(reply.repo, 'a.txt'), 'utf8')).toBe('two\n')
    expect(fs.readFileSync(path.join(f.repo, 'a.txt'), 'utf8')).toBe('three\n')
    expect(f.store.getSession(reply.sessionId)).toMatchObject({
      provider: 'ollama',
      model: 'qwen3:8b',
      status: 'idle',
    })
    // Both lists change: the parent has a fork, the child is new.
    const changed = messages.filter((m) => m.type === 'host.sessions-changed').map((m) => m.sessionId)
    expect(changed).toEqual([parent.sessionId, reply.sessionId])
  })

  it('refuses a worktree for a project that is not a git repository, saying what to do', async () => {
    const parent = await f.parentSession()
    fs.rmSync(path.join(f.repo, '.git'), { recursive: true, force: true })
    await expect(
      answer(service, 'session/fork', {
        sessionId: parent.sessionId,
        atSeq: parent.afterFirst,
        where: 'worktree',
      }),
    ).rejects.toThrow(/needs a git repository with at least one commit.*Fork in place instead/)
    expect(f.store.listSessions()).toHaveLength(1)
  })
})
