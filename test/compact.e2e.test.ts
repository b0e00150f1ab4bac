import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from './fake-model-server'
import { restartableService } from './service-harness'

/**
 * `/compact` (`session/compact`): a chat's context summarised between turns, on a real store and
 * the fake model server. The compaction is stored, later turns (also after a restart) send the
 * summary instead of the old messages, a second one has nothing to do, and a model error or a
 * running turn leaves the session as it was.
 */

let repo: string
let dataDir: string
let server: FakeModelServer

/** A file whose content is far more than a summary's worth of tokens, with a marker to look for. */
const BIG = Array.from({ length: 400 }, (_, i) => `line ${i}: the quick brown fox OLDCONTENT`).join('\n')
const SUMMARY = 'SUMMARY-TEXT: big.txt has 400 numbered lines; the user said thanks.'

const app = restartableService(() => ({ dataDir, baseUrl: server.url }))
const { open, close, call, runTurn } = app

interface Compacted {
  compacted: boolean
  beforeTokens: number
  afterTokens: number
  message: string
}

/** The chat requests' messages as one string, for "does it still carry X". */
const chatRequests = () => server.requests.filter((r) => r.path === '/api/chat')
const lastChat = () => JSON.stringify(chatRequests().at(-1)?.body.messages)

/** A chat of two messages: the first reads big.txt, the second is a short exchange. */
const CHAT: FakeTurn[] = [
  { toolCalls: [{ name: 'read_file', arguments: { path: 'big.txt' } }] },
  { text: 'It has 400 lines.' },
  { text: 'You are welcome.' },
]

async function chatOfTwoMessages(): Promise<string> {
  const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
  await runTurn(sessionId, 'Read big.txt please')
  await runTurn(sessionId, 'Thanks')
  return sessionId
}

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-compact-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-compact-data-'))
  fs.writeFileSync(path.join(repo, 'big.txt'), `${BIG}\n`)
})

afterEach(async () => {
  await close()
  await server.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('session/compact', () => {
  it('stores the compaction and later turns, after a restart too, send the summary instead', async () => {
    server = await startFakeModelServer({
      models: ['coder:1b'],
      turns: [...CHAT, { text: SUMMARY }, { text: 'Next answer.' }, { text: 'After restart.' }],
    })
    open()
    const sessionId = await chatOfTwoMessages()
    expect(lastChat()).toContain('OLDCONTENT')

    const done = await call<Compacted>('session/compact', { sessionId, focus: 'the line count' })
    expect(done.compacted).toBe(true)
    expect(done.afterTokens).toBeLessThan(done.beforeTokens - 2000)
    expect(done.message).toContain(`${done.beforeTokens.toLocaleString('en')} → `)
    // The summary request carried the old messages and the user's focus.
    const summaryAsk = JSON.stringify(chatRequests().at(-1)?.body)
    expect(summaryAsk).toContain('OLDCONTENT')
    expect(summaryAsk).toContain('keep above all: the line count')

    const compacted = app.store.listEvents(sessionId).filter((e) => e.type === 'context.compacted')
    expect(compacted).toHaveLength(1)
    expect(compacted[0]).toMatchObject({
      summary: SUMMARY,
      keptItems: 2,
      focus: 'the line count',
      beforeTokens: done.beforeTokens,
      afterTokens: done.afterTokens,
    })

    await runTurn(sessionId, 'What next?')
    const next = lastChat()
    expect(next).toContain(SUMMARY)
    expect(next).not.toContain('OLDCONTENT')
    // The first message and the last exchange stay as they were; the new message follows.
    for (const kept of ['Read big.txt please', 'Thanks', 'You are welcome.', 'What next?'])
      expect(next).toContain(kept)

    await close()
    open()
    await runTurn(sessionId, 'And now?')
    expect(lastChat()).toContain(SUMMARY)
    expect(lastChat()).not.toContain('OLDCONTENT')
  })

  it('says there is nothing to compact on an already compacted short chat, without asking the model', async () => {
    server = await startFakeModelServer({
      models: ['coder:1b'],
      turns: [...CHAT, { text: SUMMARY }, { text: 'Short answer.' }],
    })
    open()
    const sessionId = await chatOfTwoMessages()
    expect((await call<Compacted>('session/compact', { sessionId })).compacted).toBe(true)
    const requests = chatRequests().length

    const again = await call<Compacted>('session/compact', { sessionId })
    expect(again.compacted).toBe(false)
    expect(again.message).toMatch(/^Nothing to compact/)
    // One more short exchange: still nothing worth a summary.
    await runTurn(sessionId, 'Ok')
    const third = await call<Compacted>('session/compact', { sessionId })
    expect(third).toMatchObject({ compacted: false })
    expect(third.afterTokens).toBe(third.beforeTokens)
    // Only the turn asked the model.
    expect(chatRequests().length).toBe(requests + 1)
    expect(app.store.listEvents(sessionId).filter((e) => e.type === 'context.compacted')).toHaveLength(1)
  })

  it('loses nothing when the model fails while summarising', async () => {
    server = await startFakeModelServer({
      models: ['coder:1b'],
      turns: [
        ...CHAT,
        { status: 400, body: '{"error":"the model is busy elsewhere"}' },
        { text: 'Still here.' },
      ],
    })
    open()
    const sessionId = await chatOfTwoMessages()
    const before = app.store.listEvents(sessionId)

    const reply = await app.service.answer('session/compact', { sessionId })
    expect(reply.ok).toBe(false)
    expect(!reply.ok && reply.error).toMatch(/^Compaction failed, nothing was changed: .*busy elsewhere/)
    expect(app.store.listEvents(sessionId)).toEqual(before)
    expect(app.service.sessions.isRunning(sessionId)).toBe(false)

    await runTurn(sessionId, 'Go on')
    expect(lastChat()).toContain('OLDCONTENT')
  })

  it('is refused while a turn runs', async () => {
    server = await startFakeModelServer({ models: ['coder:1b'], turns: [{ hang: true }] })
    open()
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await call('turn/start', { sessionId, text: 'Think long' })
    const reply = await app.service.answer('session/compact', { sessionId })
    expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(/turn is running/) })
    await call('turn/interrupt', { sessionId })
    expect(app.store.listEvents(sessionId).some((e) => e.type === 'context.compacted')).toBe(false)
  })
})
