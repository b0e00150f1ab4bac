// `window.stepwise` for the browser: the same StepwiseApi the Electron preload provides, over the web
// host's WebSocket (`stepwise serve`). The wire format is the shared one (src/shared/protocol/wire.ts):
//   client → { id, command, input }    server → { id, reply: InvokeReply } | { message: HostMessage }
// The page is opened as `/?token=…`; the host answers with an HttpOnly cookie, so the token is taken out
// of the address bar at once and kept in memory for reconnects only.
import { TOKEN_PARAM, WS_PATH, type CommandName, type InvokeReply } from '../../../shared/protocol'
import type { StepwiseApi } from '../../../preload/api'

export type ConnectionState = 'connecting' | 'open' | 'closed'

type MessageListener = Parameters<StepwiseApi['onEvent']>[0]
type HostMessage = Parameters<MessageListener>[0]

export const LOST_CONNECTION = 'Lost the connection to the Stepwise host; retrying.'
export const DISPOSED = 'The connection to the Stepwise host was closed.'

export interface WebSocketApi extends StepwiseApi {
  /** Follows the connection; the listener is called at once with the current state. */
  onConnection(listener: (state: ConnectionState) => void): () => void
  /** Closes the socket for good: no more reconnects, pending invokes reject. */
  dispose(): void
}

/** What the transport does with a socket; `createSocket` connects these to a real WebSocket. */
export interface SocketHandlers {
  open(): void
  message(data: unknown): void
  close(): void
}

export interface SocketHandle {
  send(data: string): void
  close(code?: number, reason?: string): void
}

export type SocketFactory = (url: string, handlers: SocketHandlers) => SocketHandle

export interface WebSocketApiOptions {
  /** Default: `/ws` on the page's host, with the page's `?token=` if it has one. */
  url?: string
  /** Default: the browser's WebSocket. */
  createSocket?: SocketFactory
  /** Reconnect backoff: doubles from `minDelayMs` (250) up to `maxDelayMs` (5000). */
  minDelayMs?: number
  maxDelayMs?: number
}

const browserSocket: SocketFactory = (url, handlers) => {
  const socket = new WebSocket(url)
  socket.onopen = () => handlers.open()
  socket.onmessage = (event) => handlers.message(event.data)
  socket.onclose = () => handlers.close()
  // An error is always followed by a close; the close is what reconnects.
  socket.onerror = () => undefined
  return { send: (data) => socket.send(data), close: (code, reason) => socket.close(code, reason) }
}

/** Splits the token off a page address: the token (or null) and the address without it. */
export function takeTokenFromAddress(href: string): { token: string | null; address: string } {
  const url = new URL(href)
  const token = url.searchParams.get(TOKEN_PARAM)
  url.searchParams.delete(TOKEN_PARAM)
  return { token, address: url.href }
}

/** The WebSocket endpoint for a page at `href`, carrying `token` when there is one. */
export function socketUrlFor(href: string, token: string | null): string {
  const page = new URL(href)
  const scheme = page.protocol === 'https:' ? 'wss' : 'ws'
  const query = token ? `?${TOKEN_PARAM}=${encodeURIComponent(token)}` : ''
  return `${scheme}://${page.host}${WS_PATH}${query}`
}

/** The endpoint for this page; removes the token from the address bar (the cookie carries it now). */
function socketUrlForThisPage(): string {
  const { token, address } = takeTokenFromAddress(window.location.href)
  if (token !== null) window.history.replaceState(window.history.state, '', address)
  return socketUrlFor(window.location.href, token)
}

type Pending = { resolve: (output: unknown) => void; reject: (error: Error) => void }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export function createWebSocketApi(options: WebSocketApiOptions = {}): WebSocketApi {
  const url = options.url ?? socketUrlForThisPage()
  const createSocket = options.createSocket ?? browserSocket
  const minDelay = options.minDelayMs ?? 250
  const maxDelay = options.maxDelayMs ?? 5_000

  const messageListeners = new Set<MessageListener>()
  const connectionListeners = new Set<(state: ConnectionState) => void>()
  /** Every invoke without an answer yet, sent or not. */
  const pending = new Map<number, Pending>()
  /** Frames waiting for the socket to open. */
  let queued: string[] = []
  let socket: SocketHandle | null = null
  let state: ConnectionState = 'connecting'
  let nextId = 1
  let delay = minDelay
  let retry: ReturnType<typeof setTimeout> | undefined
  let disposed = false

  const setState = (next: ConnectionState): void => {
    if (state === next) return
    state = next
    for (const listener of [...connectionListeners]) listener(next)
  }

  const failAll = (reason: string): void => {
    const failed = [...pending.values()]
    pending.clear()
    queued = []
    for (const { reject } of failed) reject(new Error(reason))
  }

  const receive = (data: unknown): void => {
    if (typeof data !== 'string') return
    let frame: unknown
    try {
      frame = JSON.parse(data)
    } catch {
      console.error('[stepwise] the host sent a frame that is not JSON')
      return
    }
    if (!isRecord(frame)) return
    if ('message' in frame) {
      for (const listener of [...messageListeners]) {
        try {
          listener(frame.message as HostMessage)
        } catch (error) {
          console.error('[stepwise] an event listener failed', error)
        }
      }
      return
    }
    const reply = frame.reply as InvokeReply | undefined
    if (!isRecord(reply)) return
    if (typeof frame.id !== 'number') {
      console.error('[stepwise] the host could not read a request:', reply.ok ? '' : reply.error)
      return
    }
    const waiting = pending.get(frame.id)
    if (!waiting) return
    pending.delete(frame.id)
    if (reply.ok) waiting.resolve(reply.output)
    else waiting.reject(new Error(typeof reply.error === 'string' ? reply.error : 'The command failed.'))
  }

  const connect = (): void => {
    retry = undefined
    setState('connecting')
    const current: SocketHandle = createSocket(url, {
      open() {
        if (socket !== current) return
        delay = minDelay
        setState('open')
        const frames = queued
        queued = []
        for (const frame of frames) current.send(frame)
      },
      message(data) {
        if (socket === current) receive(data)
      },
      close() {
        if (socket !== current) return
        socket = null
        failAll(LOST_CONNECTION)
        setState('closed')
        if (disposed) return
        retry = setTimeout(connect, delay)
        delay = Math.min(delay * 2, maxDelay)
      },
    })
    socket = current
  }

  const invoke = (command: CommandName, input: unknown): Promise<unknown> => {
    if (disposed) return Promise.reject(new Error(DISPOSED))
    const id = nextId++
    let frame: string
    try {
      frame = JSON.stringify({ id, command, input })
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)))
    }
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject })
      if (state === 'open' && socket) socket.send(frame)
      else queued.push(frame)
    })
  }

  connect()

  return {
    invoke: invoke as StepwiseApi['invoke'],
    onEvent(listener) {
      messageListeners.add(listener)
      return () => {
        messageListeners.delete(listener)
      }
    },
    onConnection(listener) {
      connectionListeners.add(listener)
      listener(state)
      return () => {
        connectionListeners.delete(listener)
      }
    },
    dispose() {
      if (disposed) return
      disposed = true
      if (retry !== undefined) clearTimeout(retry)
      const current = socket
      socket = null
      current?.close(1000, 'The page closed the connection.')
      failAll(DISPOSED)
      setState('closed')
    },
  }
}
