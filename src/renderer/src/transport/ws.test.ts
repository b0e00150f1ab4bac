import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createWebSocketApi,
  DISPOSED,
  LOST_CONNECTION,
  socketUrlFor,
  takeTokenFromAddress,
  type ConnectionState,
  type SocketFactory,
  type SocketHandlers,
} from './ws'

/** A socket the test drives by hand: what the transport sent, and buttons for the server's side. */
interface FakeSocket {
  url: string
  sent: Array<{ id: number; command: string; input: unknown }>
  closedByClient: boolean
  open(): void
  reply(id: number | null, reply: unknown): void
  push(message: unknown): void
  raw(data: unknown): void
  drop(): void
}

function fakeSockets(): { factory: SocketFactory; sockets: FakeSocket[] } {
  const sockets: FakeSocket[] = []
  const factory: SocketFactory = (url: string, handlers: SocketHandlers) => {
    const socket: FakeSocket = {
      url,
      sent: [],
      closedByClient: false,
      open: () => handlers.open(),
      reply: (id, reply) => handlers.message(JSON.stringify({ id, reply })),
      push: (message) => handlers.message(JSON.stringify({ message })),
      raw: (data) => handlers.message(data),
      drop: () => handlers.close(),
    }
    sockets.push(socket)
    return {
      send: (data) => socket.sent.push(JSON.parse(data)),
      close: () => {
        socket.closedByClient = true
      },
    }
  }
  return { factory, sockets }
}

let fake: ReturnType<typeof fakeSockets>
beforeEach(() => {
  vi.useFakeTimers()
  fake = fakeSockets()
})
afterEach(() => {
  vi.useRealTimers()
})

const start = (): ReturnType<typeof createWebSocketApi> =>
  createWebSocketApi({ url: 'ws://127.0.0.1:4000/ws?token=t', createSocket: fake.factory })

const last = (): FakeSocket => fake.sockets[fake.sockets.length - 1]

describe('the WebSocket transport', () => {
  it('queues invokes while connecting and correlates replies by id', async () => {
    const api = start()
    expect(last().url).toBe('ws://127.0.0.1:4000/ws?token=t')
    const first = api.invoke('session/list', {})
    const second = api.invoke('turn/interrupt', { sessionId: 's1' })
    expect(last().sent).toEqual([])
    last().open()
    expect(last().sent).toEqual([
      { id: 1, command: 'session/list', input: {} },
      { id: 2, command: 'turn/interrupt', input: { sessionId: 's1' } },
    ])
    last().reply(2, { ok: true, output: { interrupted: true } })
    last().reply(1, { ok: true, output: { sessions: [] } })
    await expect(second).resolves.toEqual({ interrupted: true })
    await expect(first).resolves.toEqual({ sessions: [] })

    const third = api.invoke('session/list', {})
    expect(last().sent[2]).toEqual({ id: 3, command: 'session/list', input: {} })
    last().reply(3, { ok: false, error: 'Invalid input for session/list: repo' })
    await expect(third).rejects.toThrow(new Error('Invalid input for session/list: repo'))
  })

  it('hands pushed messages to every listener until it unsubscribes', () => {
    const api = start()
    last().open()
    const [a, b] = [vi.fn(), vi.fn()]
    const stopA = api.onEvent(a)
    api.onEvent(b)
    const notice = { type: 'host.sessions-changed', sessionId: 's1' }
    last().push(notice)
    stopA()
    last().push(notice)
    expect(a).toHaveBeenCalledTimes(1)
    expect(a).toHaveBeenCalledWith(notice)
    expect(b).toHaveBeenCalledTimes(2)
  })

  it('ignores frames it cannot read and keeps going', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    const api = start()
    last().open()
    const call = api.invoke('session/list', {})
    last().raw('{nope')
    last().raw(new ArrayBuffer(2))
    last().raw('[1]')
    last().reply(null, { ok: false, error: 'The message is not valid JSON.' })
    last().reply(99, { ok: true, output: 'unknown id' })
    last().reply(1, { ok: true, output: { sessions: [] } })
    await expect(call).resolves.toEqual({ sessions: [] })
    expect(errors).toHaveBeenCalledTimes(2)
    errors.mockRestore()
  })

  it('rejects what is pending on a lost connection and reconnects with backoff', async () => {
    const api = start()
    const states: ConnectionState[] = []
    api.onConnection((state) => states.push(state))
    last().open()
    const sent = api.invoke('session/list', {})
    last().drop()
    await expect(sent).rejects.toThrow(LOST_CONNECTION)
    expect(states).toEqual(['connecting', 'open', 'closed'])

    // Queued while closed: rejected too when the next attempt fails as well.
    const queued = api.invoke('session/list', {})
    expect(fake.sockets).toHaveLength(1)
    vi.advanceTimersByTime(249)
    expect(fake.sockets).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(fake.sockets).toHaveLength(2)
    last().drop()
    await expect(queued).rejects.toThrow(LOST_CONNECTION)

    const delays: number[] = []
    for (let attempt = 0; attempt < 6; attempt++) {
      const before = fake.sockets.length
      let waited = 0
      while (fake.sockets.length === before) {
        vi.advanceTimersByTime(50)
        waited += 50
      }
      delays.push(waited)
      last().drop()
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 5000, 5000])

    // A successful connection resets the backoff and sends what was queued meanwhile.
    vi.advanceTimersByTime(5000)
    const later = api.invoke('session/list', {})
    last().open()
    expect(last().sent).toEqual([{ id: 3, command: 'session/list', input: {} }])
    last().reply(3, { ok: true, output: { sessions: [] } })
    await expect(later).resolves.toEqual({ sessions: [] })
    last().drop()
    const count = fake.sockets.length
    vi.advanceTimersByTime(250)
    expect(fake.sockets).toHaveLength(count + 1)
    expect(states.slice(-3)).toEqual(['open', 'closed', 'connecting'])
  })

  it('stops for good when disposed', async () => {
    const api = start()
    last().open()
    const call = api.invoke('session/list', {})
    api.dispose()
    await expect(call).rejects.toThrow(DISPOSED)
    expect(last().closedByClient).toBe(true)
    last().drop()
    vi.advanceTimersByTime(10_000)
    expect(fake.sockets).toHaveLength(1)
    await expect(api.invoke('session/list', {})).rejects.toThrow(DISPOSED)
  })
})

describe('the page address', () => {
  it('gives up its token, and the socket URL carries it', () => {
    const { token, address } = takeTokenFromAddress('http://127.0.0.1:4000/?token=a%2Bb&x=1#s')
    expect(token).toBe('a+b')
    expect(address).toBe('http://127.0.0.1:4000/?x=1#s')
    expect(takeTokenFromAddress('http://localhost:4000/')).toEqual({
      token: null,
      address: 'http://localhost:4000/',
    })
    expect(socketUrlFor('http://127.0.0.1:4000/', 'a+b')).toBe('ws://127.0.0.1:4000/ws?token=a%2Bb')
    expect(socketUrlFor('https://box.example/', null)).toBe('wss://box.example/ws')
  })
})
