import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { WebSocket } from 'ws'
import type { HostMessage } from '../../../shared/protocol'
import { BACKPRESSURE_LIMIT, CLOSE_TOO_FAR_BEHIND } from '../../../shared/protocol/wire'
import { startWebHost, type WebHost } from './server'
import {
  closed,
  connect,
  fakeService,
  inbox,
  openSocket,
  rawGet,
  rendererFixture,
  type RendererFixture,
  type SocketOutcome,
} from './test-support'

let fixture: RendererFixture
let host: WebHost
const service = fakeService()
const opened: WebSocket[] = []

beforeAll(async () => {
  fixture = rendererFixture({ 'index.html': '<!doctype html><title>Stepwise</title>' })
  host = await startWebHost({ service, rendererDir: fixture.dir })
})

afterEach(async () => {
  for (const socket of opened.splice(0)) socket.terminate()
  // The host notices a hang-up a moment later; each test starts with no subscriber.
  await waitFor(() => service.subscribers === 0)
})

afterAll(async () => {
  await host?.close()
  fixture?.remove()
})

const origin = (): string => `http://127.0.0.1:${host.port}`
const wsUrl = (token = host.token): string => `ws://127.0.0.1:${host.port}/ws?token=${token}`

async function client(): Promise<WebSocket> {
  const socket = await connect(wsUrl(), origin())
  opened.push(socket)
  return socket
}

/** Opens a socket that is closed after the test even when it was (wrongly) accepted. */
async function attempt(url: string, options: Parameters<typeof openSocket>[1] = {}): Promise<SocketOutcome> {
  const outcome = await openSocket(url, options)
  if (outcome.opened) opened.push(outcome.socket)
  return outcome
}

const changed = (sessionId: string): HostMessage => ({ type: 'host.sessions-changed', sessionId })

const waitFor = async (condition: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  expect(condition()).toBe(true)
}

describe('WebSocket upgrades', () => {
  it('are refused with 401 without the token or with a wrong one', async () => {
    expect(await attempt(`ws://127.0.0.1:${host.port}/ws`, { origin: origin() })).toEqual({
      opened: false,
      status: 401,
    })
    expect(await attempt(wsUrl('wrong'), { origin: origin() })).toEqual({ opened: false, status: 401 })
    expect(await attempt(wsUrl(`${host.token}x`), { origin: origin() })).toEqual({
      opened: false,
      status: 401,
    })
  })

  it('are refused with 403 from another origin or without one', async () => {
    for (const other of [
      'http://evil.example',
      `http://127.0.0.1:${host.port + 1}`,
      `https://127.0.0.1:${host.port}`,
    ]) {
      expect(await attempt(wsUrl(), { origin: other }), other).toEqual({ opened: false, status: 403 })
    }
    expect(await attempt(wsUrl())).toEqual({ opened: false, status: 403 })
  })

  it('are refused with 403 for a foreign Host and 404 off the endpoint', async () => {
    const headers = { host: `evil.example:${host.port}` }
    expect(await attempt(wsUrl(), { origin: origin(), headers })).toEqual({ opened: false, status: 403 })
    const elsewhere = `ws://127.0.0.1:${host.port}/other?token=${host.token}`
    expect(await attempt(elsewhere, { origin: origin() })).toEqual({ opened: false, status: 404 })
  })

  it('are accepted from the page with the token, in the query or in the cookie', async () => {
    const page = await rawGet(host.port, `/?token=${host.token}`)
    const cookie = String(page.headers['set-cookie']).split(';')[0]
    const viaCookie = await attempt(`ws://127.0.0.1:${host.port}/ws`, {
      origin: origin(),
      headers: { cookie },
    })
    expect(viaCookie.opened).toBe(true)
    const viaLocalhost = await attempt(`ws://localhost:${host.port}/ws?token=${host.token}`, {
      origin: `http://localhost:${host.port}`,
    }).catch(() => null) // localhost may resolve to ::1, where nothing listens
    if (viaLocalhost) expect(viaLocalhost.opened).toBe(true)
  })
})

describe('the WebSocket protocol', () => {
  it('answers a command under its id', async () => {
    const socket = await client()
    const box = inbox(socket)
    socket.send(JSON.stringify({ id: 7, command: 'echo', input: { text: 'hi' } }))
    socket.send(JSON.stringify({ id: 8, command: 'session/nope', input: {} }))
    socket.send(JSON.stringify({ id: 9, command: 'explode' }))
    expect(await box.next((m) => (m as { id?: number }).id === 7)).toEqual({
      id: 7,
      reply: { ok: true, output: { text: 'hi' } },
    })
    expect(await box.next((m) => (m as { id?: number }).id === 8)).toEqual({
      id: 8,
      reply: { ok: false, error: 'Unknown command "session/nope".' },
    })
    expect(await box.next((m) => (m as { id?: number }).id === 9)).toEqual({
      id: 9,
      reply: { ok: false, error: 'explode failed: boom' },
    })
    expect(service.calls).toContainEqual({ command: 'echo', input: { text: 'hi' } })
  })

  it('answers malformed frames without dropping the connection', async () => {
    const socket = await client()
    const box = inbox(socket)
    socket.send('{not json')
    socket.send(JSON.stringify([1, 2]))
    socket.send(JSON.stringify({ id: 'x', command: 'echo' }))
    socket.send(JSON.stringify({ id: 3, input: {} }))
    socket.send(Buffer.from([1, 2, 3]), { binary: true })
    socket.send(JSON.stringify({ id: 4, command: 'echo', input: 'still here' }))
    await box.next((m) => (m as { id?: number }).id === 4)
    expect(box.messages).toEqual([
      { id: null, reply: { ok: false, error: 'The message is not valid JSON.' } },
      { id: null, reply: { ok: false, error: 'Expected an object { id, command, input }.' } },
      { id: null, reply: { ok: false, error: 'Expected "id" to be a non-negative integer.' } },
      { id: 3, reply: { ok: false, error: 'Expected "command" to be a command name.' } },
      { id: null, reply: { ok: false, error: 'Expected a text frame with JSON.' } },
      { id: 4, reply: { ok: true, output: 'still here' } },
    ])
  })

  it('pushes every message to every client and unsubscribes a closed one', async () => {
    const [first, second] = [await client(), await client()]
    const [one, two] = [inbox(first), inbox(second)]
    await waitFor(() => service.subscribers === 2)
    service.emit(changed('s1'))
    service.emit(changed('s2'))
    const last = (m: unknown): boolean =>
      (m as { message?: { sessionId?: string } }).message?.sessionId === 's2'
    await Promise.all([one.next(last), two.next(last)])
    expect(one.messages).toEqual([{ message: changed('s1') }, { message: changed('s2') }])
    expect(two.messages).toEqual(one.messages)

    first.close()
    await closed(first)
    await waitFor(() => service.subscribers === 1)
    service.emit(changed('s3'))
    await two.next((m) => (m as { message?: { sessionId?: string } }).message?.sessionId === 's3')
    expect(one.messages).toHaveLength(2)
  })

  it('closes a client that falls too far behind with 1013 instead of dropping events', async () => {
    const socket = await client()
    await waitFor(() => service.subscribers === 1)
    socket.pause()
    const big = 'x'.repeat(1024 * 1024)
    for (let i = 0; i < 4 * (BACKPRESSURE_LIMIT / big.length); i++) {
      service.emit({ type: 'host.sessions-changed', sessionId: `${i}-${big}` })
    }
    // The host stops feeding it at once, before the client has read anything.
    expect(service.subscribers).toBe(0)
    const gone = closed(socket)
    socket.resume()
    expect(await gone).toEqual({
      code: CLOSE_TOO_FAR_BEHIND,
      reason: 'Too far behind on events; reconnect and refetch.',
    })
  })

  it('closes its sockets when the host closes, and leaves the service open', async () => {
    const other = await startWebHost({ service, rendererDir: fixture.dir })
    const socket = await connect(
      `ws://127.0.0.1:${other.port}/ws?token=${other.token}`,
      `http://127.0.0.1:${other.port}`,
    )
    const gone = closed(socket)
    await other.close()
    expect((await gone).code).toBe(1001)
    expect(service.closed).toBe(false)
  })
})
