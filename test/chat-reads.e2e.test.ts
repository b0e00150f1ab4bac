import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from './fake-model-server'
import { restartableService } from './service-harness'

/**
 * A chat remembers what it read: a file read in one message can be written in the next,
 * in the same app run and after a restart, until it changes on disk. And a command the
 * policy refused leaves no checkpoint in the timeline.
 */

let repo: string
let dataDir: string
let server: FakeModelServer

const app = restartableService(() => ({ dataDir, baseUrl: server.url }))
const { open, close, call, runTurn } = app

/** The result the model got for each call of a turn's tools, in order. */
const results = (sessionId: string) =>
  app.store
    .listEvents(sessionId)
    .flatMap((e) => (e.type === 'tool.finished' ? [{ name: e.name, ok: e.ok, result: e.result }] : []))

const write = (content: string): FakeTurn => ({
  toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content } }],
})

beforeEach(() => {
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-reads-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-reads-data-'))
  fs.writeFileSync(path.join(repo, 'a.txt'), 'one\n')
})

afterEach(async () => {
  await close()
  await server.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe('a chat remembers its reads', () => {
  it('writes in a later message, and after a restart, a file read in an earlier one', async () => {
    server = await startFakeModelServer({
      models: ['coder:1b'],
      turns: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { text: 'It says one.' },
        write('two\n'),
        { text: 'Written.' },
        write('three\n'),
        { text: 'Written again.' },
        write('four\n'),
        { text: 'Tried.' },
      ],
    })
    open()
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await runTurn(sessionId, 'What does a.txt say?')
    await runTurn(sessionId, 'Make it two')
    expect(results(sessionId)[1]).toMatchObject({ name: 'write_file', ok: true })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('two\n')

    // The app quits and starts again on the same database.
    await close()
    open()
    await runTurn(sessionId, 'Make it three')
    expect(results(sessionId)[2]).toMatchObject({ name: 'write_file', ok: true })
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('three\n')

    // A change on disk is what ends a read: the next write must read again.
    fs.writeFileSync(path.join(repo, 'a.txt'), 'changed by the user\n')
    await runTurn(sessionId, 'Make it four')
    const refused = results(sessionId)[3]
    expect(refused).toMatchObject({ name: 'write_file', ok: false })
    expect(String(refused.result.error)).toMatch(/changed on disk since you read it/)
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('changed by the user\n')
  })

  it('records no checkpoint for a command the policy refused', async () => {
    server = await startFakeModelServer({
      models: ['coder:1b'],
      turns: [
        { toolCalls: [{ name: 'run_command', arguments: { command: 'rm -rf .' } }] },
        { text: 'Refused, as it should be.' },
      ],
    })
    open()
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await runTurn(sessionId, 'Clean everything')
    const events = app.store.listEvents(sessionId)
    const finished = events.find((e) => e.type === 'tool.finished')
    expect(finished).toMatchObject({ name: 'run_command', ok: false })
    expect(finished?.type === 'tool.finished' && String(finished.result.error)).toMatch(/Refused/)
    expect(events.filter((e) => e.type === 'checkpoint.created')).toEqual([])
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe('one\n')
  })

  it("loads the session's events once for a turn that continues it, after a restart too", async () => {
    server = await startFakeModelServer({
      models: ['coder:1b'],
      turns: [{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }],
    })
    open()
    const { sessionId } = await call<{ sessionId: string }>('session/create', { repo })
    await runTurn(sessionId, 'first')
    /** How often a turn of `sessionId` reads its events back from the store. */
    const countLoads = async (text: string): Promise<number> => {
      const listEvents = app.store.listEvents.bind(app.store)
      let loads = 0
      app.store.listEvents = (id, opts) => {
        if (id === sessionId && !opts?.afterSeq) loads += 1
        return listEvents(id, opts)
      }
      await runTurn(sessionId, text)
      app.store.listEvents = listEvents
      return loads
    }
    expect(await countLoads('second')).toBe(1)
    await close()
    open()
    expect(await countLoads('third')).toBe(1)
    expect(results(sessionId)).toEqual([])
  })
})
