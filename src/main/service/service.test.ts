import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { HostMessage, StepwiseEvent } from '../../shared/protocol'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from '../../../test/fake-model-server'
import { answer, startService, type CoreService, until } from '../../../test/service-harness'
import { openDataFolder } from '../open-data-folder'
import { openStore } from '../store/store'
import { rewindSession } from '../timetravel/restore'
import { recordSession } from '../timetravel/restore-testing'
import type { Store } from '../store/types'

let repo: string
let dataDir: string
let store: Store
let server: FakeModelServer
let service: CoreService
let messages: HostMessage[]

const BEFORE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'

async function setup(turns: FakeTurn[], extra: { pullable?: string[] } = {}): Promise<void> {
  server = await startFakeModelServer({ turns, models: ['coder:1b'], ...extra, pullStepMs: 1 })
  service = startService({ store, dataDir, baseUrl: server.url, approvalPolicy: 'ask' })
  messages = []
  service.subscribe((m) => messages.push(m))
}

const call = <T = Record<string, unknown>>(command: string, input: unknown): Promise<T> =>
  answer<T>(service, command, input)

const events = (sessionId: string): StepwiseEvent[] => store.listEvents(sessionId)
const turnEnded = (sessionId: string, n: number) => () =>
  messages.filter((m) => m.type === 'host.turn-ended' && m.sessionId === sessionId).length >= n

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-service-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-service-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), BEFORE)
  store = openStore(dataDir)
})

afterEach(async () => {
  await service.close()
  await server.close()
  store.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('core service', () => {
  it('refuses unknown commands and bad input with a readable error, touching nothing', async () => {
    await setup([])
    expect(await service.answer('nope/never', {})).toEqual({
      ok: false,
      error: 'Unknown command "nope/never".',
    })
    const bad = await service.answer('turn/start', { sessionId: 's', text: '' })
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.error).toMatch(/Invalid input for turn\/start/)
    const missing = await service.answer('session/create', { repo: path.join(repo, 'no-such-dir') })
    expect(!missing.ok && missing.error).toMatch(/Folder not found/)
    expect(store.listSessions()).toEqual([])
  })

  it('chats over several turns; a partial approval writes only the accepted hunks and tells the model', async () => {
    const edited = BEFORE.replace('line 2\n', 'line TWO\n').replace('line 28\n', 'line TWENTY-EIGHT\n')
    await setup([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: edited } }] },
      { text: 'Done.' },
      { text: 'Second answer.' },
    ])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    // A new, empty chat is not running: nothing runs until its first message.
    const fresh = await call<{ sessions: Array<{ id: string; status: string }> }>('session/list', { repo })
    expect(fresh.sessions).toMatchObject([{ id: sessionId, status: 'idle' }])
    expect(events(sessionId).map((e) => e.type)).toEqual(['session.started'])
    await call('turn/start', { sessionId, text: 'Rename two lines' })
    const requested = await until('the approval request', () =>
      events(sessionId).find((e) => e.type === 'approval.requested'),
    )
    if (requested.type !== 'approval.requested') throw new Error('unreachable')
    // The user keeps the first hunk only.
    const partial = BEFORE.replace('line 2\n', 'line TWO\n')
    await call('approval/resolve', {
      sessionId,
      callId: requested.callId,
      decision: 'partial',
      editedContent: partial,
      reason: 'keep 28',
    })
    await until('the first turn to end', turnEnded(sessionId, 1))
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe(partial)
    const resolved = events(sessionId).find((e) => e.type === 'approval.resolved')
    expect(resolved).toMatchObject({ decision: 'partial', by: 'user', reason: 'keep 28' })
    const second = JSON.stringify(server.requests.filter((r) => r.path === '/api/chat')[2].body)
    expect(second).toContain('user_partially_accepted')
    expect(second).toContain('-line 2\\\\n+line TWO')

    await call('turn/start', { sessionId, text: 'And now?' })
    await until('the second turn to end', turnEnded(sessionId, 2))
    const third = server.requests.filter((r) => r.path === '/api/chat')[3].body
    const texts = (third.messages as Array<{ role: string; content: string }>).map(
      (m) => `${m.role}:${m.content}`,
    )
    expect(texts).toContain('user:Rename two lines')
    expect(texts).toContain('assistant:Done.')
    expect(texts.at(-1)).toBe('user:And now?')
    const listed = await call<{ sessions: Array<{ id: string; title: string; status: string }> }>(
      'session/list',
      {
        repo,
      },
    )
    expect(listed.sessions).toMatchObject([{ id: sessionId, title: 'Rename two lines', status: 'done' }])
    // Every event the renderer saw is the stored one, in order.
    const seen = messages.filter((m) => !m.type.startsWith('host.'))
    expect(seen).toEqual(events(sessionId))
  })

  it('stops a running turn; its waiting approval is answered as a rejection', async () => {
    await setup([{ toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'x\n' } }] }])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('turn/start', { sessionId, text: 'make b' })
    const again = await service.answer('turn/start', { sessionId, text: 'twice' })
    expect(!again.ok && again.error).toMatch(/already running/)
    await until('the approval', () => events(sessionId).some((e) => e.type === 'approval.requested'))
    expect(await call('turn/interrupt', { sessionId })).toEqual({ interrupted: true })
    await until('the turn to end', turnEnded(sessionId, 1))
    expect(fs.existsSync(path.join(repo, 'b.txt'))).toBe(false)
    expect(events(sessionId).at(-2)).toMatchObject({ type: 'session.finished', reason: 'interrupted' })
    expect(events(sessionId).at(-1)).toMatchObject({ type: 'turn.finished', reason: 'interrupted' })
    const late = await service.answer('approval/resolve', {
      sessionId,
      callId: 'call_fake_0_0',
      decision: 'accept',
    })
    expect(!late.ok && late.error).toMatch(/no longer waiting/)
  })

  it('undoes a change from the app, and a rewind brings it back', async () => {
    await setup([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'new\n' } }] },
      { text: 'ok' },
    ])
    const { sessionId } = await call<{ sessionId: string }>('session/create', {
      repo,
      approvalPolicy: 'auto-edit',
    })
    await call('turn/start', { sessionId, text: 'replace a' })
    await until('the turn to end', turnEnded(sessionId, 1))
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('new\n')
    expect(await call('session/undo', { sessionId })).toMatchObject({ status: 'restored', paths: ['a.txt'] })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe(BEFORE)
    const checkpoint = events(sessionId).find((e) => e.type === 'checkpoint.created')!
    expect(await call('session/rewind', { sessionId, toSeq: checkpoint.seq })).toMatchObject({
      status: 'restored',
    })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('new\n')
    expect(messages.filter((m) => m.type === 'checkpoint.restored')).toHaveLength(2)
    const at = await call<{ files: string[]; diff: string }>('session/files-at', {
      sessionId,
      seq: checkpoint.seq,
    })
    expect(at.files).toEqual(['a.txt'])
    expect(at.diff).toContain('+new')
    const before = await call('session/file-at', { sessionId, seq: events(sessionId)[0].seq, path: 'a.txt' })
    expect(before).toEqual({ content: BEFORE, before: null, binary: false })
    const changed = await call('session/file-at', { sessionId, seq: checkpoint.seq, path: 'a.txt' })
    expect(changed).toEqual({ content: 'new\n', before: BEFORE, binary: false })
  })

  it('lists Ollama models, pulls one with progress, and names what is missing', async () => {
    await setup([], { pullable: ['tiny:1b'] })
    const listed = await call<{ models: Array<{ name: string; parameters?: string }> }>('models/list', {
      provider: 'ollama',
      baseUrl: server.url,
    })
    expect(listed.models.map((m) => m.name)).toEqual(['coder:1b'])
    const missing = await call<{ ok: boolean; problems: Array<{ code: string }> }>('models/check', {
      provider: 'ollama',
      model: 'tiny:1b',
      baseUrl: server.url,
    })
    expect(missing.problems.map((p) => p.code)).toEqual(['model-missing'])
    expect(await call('models/pull', { model: 'tiny:1b', baseUrl: server.url })).toEqual({ started: true })
    const last = await until('the pull to finish', () =>
      messages.find((m) => m.type === 'host.pull-progress' && m.done),
    )
    expect(last).toMatchObject({ status: 'success', done: true })
    const progress = messages.filter((m) => m.type === 'host.pull-progress' && m.total)
    expect(progress.length).toBe(10)
    expect(await call('models/check', { provider: 'ollama', model: 'tiny:1b', baseUrl: server.url })).toEqual(
      {
        ok: true,
        problems: [],
      },
    )
    const down = await call<{ problems: Array<{ code: string }> }>('models/check', {
      provider: 'ollama',
      model: 'x',
      baseUrl: 'http://127.0.0.1:9',
    })
    expect(down.problems.map((p) => p.code)).toEqual(['server-down'])
  })

  it('keeps settings, and completes folder paths', async () => {
    await setup([])
    const set = await call('settings/set', {
      approvalPolicy: 'auto-edit',
      commands: { allow: ['make'], deny: [] },
    })
    expect(set).toMatchObject({ approvalPolicy: 'auto-edit', commands: { allow: ['make'], deny: [] } })
    expect(await call('settings/get', {})).toEqual(set)
    fs.mkdirSync(path.join(repo, 'src'))
    fs.mkdirSync(path.join(repo, 'spec'))
    const done = await call<{ entries: string[] }>('fs/complete', { path: path.join(repo, 's') })
    expect(done.entries).toEqual([path.join(repo, 'spec'), path.join(repo, 'src')])
    const opened = await call('project/open', { repo })
    expect(opened).toEqual({ repo, name: path.basename(repo), branch: null })
    expect((await call<{ recentProjects: string[] }>('app/info', {})).recentProjects).toEqual([repo])
  })

  it("runs a turn's tool calls up to the limit set in the app's settings, then says the rest were not run", async () => {
    const read = { name: 'read_file', arguments: { path: 'a.txt' } }
    await setup([{ toolCalls: [read] }, { toolCalls: [read, read] }, { text: 'Stopped at the limit.' }])
    expect(await call('settings/get', {})).toMatchObject({ maxToolCalls: 50 })
    await call('settings/set', { maxToolCalls: 2 })
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('turn/start', { sessionId, text: 'Read it three times' })
    await until('the turn to end', turnEnded(sessionId, 1))
    const finished = events(sessionId).filter((e) => e.type === 'tool.finished')
    expect(finished).toHaveLength(2)
    // The model is not asked again: the turn ends, saying why and what to do in the app.
    expect(server.requests.filter((r) => r.path === '/api/chat')).toHaveLength(2)
    expect(events(sessionId).find((e) => e.type === 'session.finished')).toMatchObject({
      reason: 'step-limit',
      message: expect.stringMatching(/Stopped after 2 tool calls.*"Max tool calls a turn" in Settings/),
    })
  })

  it('says truthfully where the browser host keeps API keys: a 0600 file at its path, not "encrypted"', async () => {
    await setup([])
    const info = await call<{ keyStorage: string }>('app/info', {})
    expect(info.keyStorage).toContain(path.join(dataDir, 'credentials.json'))
    expect(info.keyStorage).toMatch(/plain text.*0600/)
    expect(info.keyStorage).not.toMatch(/encrypt/i)
  })
})

describe('core service after a stop', () => {
  it('takes the next message after a turn stopped mid-request', async () => {
    await setup([{ hang: true }, { text: 'Back again.' }])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('turn/start', { sessionId, text: 'Take your time' })
    await until('the request', () => server.requests.some((r) => r.path === '/api/chat'))
    await call('turn/interrupt', { sessionId })
    await until('the first turn to end', turnEnded(sessionId, 1))
    await call('turn/start', { sessionId, text: 'Again' })
    await until('the second turn to end', turnEnded(sessionId, 2))
    const texts = events(sessionId).map((e) => e.type + (e.type === 'assistant.message' ? `:${e.text}` : ''))
    expect(texts).toContain('assistant.message:Back again.')
  })
})

describe('an approved change whose file changed on disk while it waited', () => {
  async function conflictAfterApproval(): Promise<{ sessionId: string; callId: string }> {
    await setup([
      { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'proposal\n' } }] },
      { text: 'ok' },
    ])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('turn/start', { sessionId, text: 'rewrite a' })
    const asked = await until('the approval', () =>
      events(sessionId).find((e) => e.type === 'approval.requested'),
    )
    if (asked.type !== 'approval.requested') throw new Error('unreachable')
    // The user edits the file in their editor while the diff waits, then accepts the diff.
    fs.writeFileSync(path.join(repo, 'a.txt'), 'the user was here\n')
    await call('approval/resolve', { sessionId, callId: asked.callId, decision: 'accept' })
    const conflict = await until('the conflict', () =>
      events(sessionId).find((e) => e.type === 'approval.requested' && e.subject.kind === 'conflict'),
    )
    expect(conflict).toMatchObject({ subject: { kind: 'conflict', path: 'a.txt' } })
    return { sessionId, callId: asked.callId }
  }

  it('Apply writes the proposal anyway', async () => {
    const { sessionId, callId } = await conflictAfterApproval()
    await call('approval/resolve', { sessionId, callId, decision: 'accept' })
    await until('the turn to end', turnEnded(sessionId, 1))
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('proposal\n')
  })

  it("Skip keeps the user's version and tells the model not to redo it", async () => {
    const { sessionId, callId } = await conflictAfterApproval()
    await call('approval/resolve', { sessionId, callId, decision: 'reject' })
    await until('the turn to end', turnEnded(sessionId, 1))
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('the user was here\n')
    const finished = events(sessionId).filter((e) => e.type === 'tool.finished')
    expect(JSON.stringify(finished.at(-1))).toContain('chose to keep their version')
  })

  it('Regenerate sends the model back to read the file again', async () => {
    const { sessionId, callId } = await conflictAfterApproval()
    await call('approval/resolve', { sessionId, callId, decision: 'regenerate' })
    await until('the turn to end', turnEnded(sessionId, 1))
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('the user was here\n')
    const finished = events(sessionId).filter((e) => e.type === 'tool.finished')
    expect(JSON.stringify(finished.at(-1))).toContain('read it again with read_file')
  })
})

describe('the host starting after a crash in the middle of a rewind', () => {
  it('finishes the rewind and says so in app/info', async () => {
    const s = await recordSession(store, repo)
    await s.change({ 'a.txt': 'one\n', 'b.txt': 'two\n' })
    store.setSessionStatus(s.sessionId, 'done')
    // The "crash": the process dies after the first file is written; the journal stays pending.
    let written = 0
    await expect(
      rewindSession(store, s.sessionId, s.startedSeq, {
        onFile: () => {
          if (++written === 1) throw new Error('killed')
        },
      }),
    ).rejects.toThrow('killed')
    // The host starts again: it opens the data folder the one way every host does.
    store.close()
    const opened = openDataFolder(dataDir)
    store = opened.store
    server = await startFakeModelServer({ turns: [], models: ['coder:1b'] })
    service = startService({ store, dataDir, baseUrl: server.url, notices: opened.notices })
    const info = await call<{ notices: string[] }>('app/info', {})
    expect(info.notices).toHaveLength(1)
    expect(info.notices[0]).toMatch(/rewind/i)
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe(BEFORE)
    expect(fs.existsSync(path.join(repo, 'b.txt'))).toBe(false)
  })
})

describe('a model switch', () => {
  it('is recorded, and a host started again continues on the switched model', async () => {
    await setup([{ text: 'first' }, { text: 'second' }])
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('session/configure', { sessionId, model: 'coder:7b', approvalPolicy: 'read-only' })
    expect(events(sessionId).at(-1)).toMatchObject({
      type: 'session.configured',
      model: 'coder:7b',
      approvalPolicy: 'read-only',
    })
    // A new host on the same store: it knows the session only from its events.
    await service.close()
    service = startService({ store, dataDir, baseUrl: server.url, approvalPolicy: 'ask' })
    messages = []
    service.subscribe((m) => messages.push(m))
    await call('turn/start', { sessionId, text: 'hello' })
    await until('the turn to end', turnEnded(sessionId, 1))
    const chat = server.requests.filter((r) => r.path === '/api/chat')
    expect(chat.map((r) => r.body.model)).toEqual(['coder:7b'])
    // read-only offers no mutating tool.
    const offered = (chat[0].body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)
    expect(offered).toContain('read_file')
    expect(offered).not.toContain('write_file')
  })
})
