// `window.stepwise` for the browser: the same StepwiseApi the Electron preload provides, over the web
// host's WebSocket (`stepwise serve`). The wire format is the shared one (src/shared/protocol/wire.ts):
//   client → { id, command, input }    server → { id, reply: InvokeReply } | { message: HostMessage }
// The page is opened as `/?token=…`; the host answers with an HttpOnly cookie, so the token is taken out
// of the address bar at once and kept in memory for reconnects only.
import { TOKEN_PARAM, WS_PATH, type CommandOutput, type InvokeReply } from '../../../shared/protocol'
import { isRecord } from '../../../shared/records'
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

/** A frame from the host, read: an event or notice for the listeners, or the answer to an invoke. */
type HostFrame = { kind: 'push'; message: HostMessage } | { kind: 'reply'; id: number; reply: InvokeReply }

/** Reads one frame off the socket; null (said on the console when it matters) for one that is not ours. */
function readFrame(data: unknown): HostFrame | null {
  if (typeof data !== 'string') return null
  let frame: unknown
  try {
    frame = JSON.parse(data)
  } catch {
    console.error('[stepwise] the host sent a frame that is not JSON')
    return null
  }
  if (!isRecord(frame)) return null
  if (frame.message !== undefined)
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the host's own events, on every step: parsing each against the event schema would cost on the stream, and the reducer discriminates on `type`
    return { kind: 'push', message: frame.message as HostMessage }
  const reply = frame.reply
  if (!isRecord(reply)) return null
  if (typeof frame.id !== 'number') {
    console.error('[stepwise] the host could not read a request:', reply.ok ? '' : reply.error)
    return null
  }
  if (reply.ok) return { kind: 'reply', id: frame.id, reply: { ok: true, output: reply.output } }
  const error = typeof reply.error === 'string' ? reply.error : 'The command failed.'
  return { kind: 'reply', id: frame.id, reply: { ok: false, error } }
}

/** Adds `listener` to `listeners`; returns the function that takes it out. */
function subscribe<T>(listeners: Set<T>, listener: T): () => void {
  listeners.add(listener)
  return () => {
    listeners.delete(listener)
  }
}

/**
 * One connection to the host: invokes sent (or queued while the socket opens) and answered by id,
 * events handed to the listeners, and a reconnect with backoff whenever the socket closes.
 */
class WebSocketClient implements WebSocketApi {
  private readonly messageListeners = new Set<MessageListener>()
  private readonly connectionListeners = new Set<(state: ConnectionState) => void>()
  /** Every invoke without an answer yet, sent or not. */
  private readonly pending = new Map<number, Pending>()
  /** Frames waiting for the socket to open. */
  private queued: string[] = []
  private socket: SocketHandle | null = null
  private state: ConnectionState = 'connecting'
  private nextId = 1
  private delay: number
  private retry: ReturnType<typeof setTimeout> | undefined
  private disposed = false
  private readonly url: string
  private readonly createSocket: SocketFactory
  private readonly minDelay: number
  private readonly maxDelay: number

  constructor(options: WebSocketApiOptions) {
    this.url = options.url ?? socketUrlForThisPage()
    this.createSocket = options.createSocket ?? browserSocket
    this.minDelay = options.minDelayMs ?? 250
    this.maxDelay = options.maxDelayMs ?? 5_000
    this.delay = this.minDelay
    this.connect()
  }

  // The public members are arrow functions: callers may pass them around unbound.
  readonly invoke: StepwiseApi['invoke'] = (command, input) => {
    if (this.disposed) return Promise.reject(new Error(DISPOSED))
    const id = this.nextId++
    let frame: string
    try {
      frame = JSON.stringify({ id, command, input })
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)))
    }
    return new Promise((resolve, reject) => {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the host's answer to this very command: its output is the command's, as the Electron bridge's is
      this.pending.set(id, { resolve: (output) => resolve(output as CommandOutput<typeof command>), reject })
      if (this.state === 'open' && this.socket) this.socket.send(frame)
      else this.queued.push(frame)
    })
  }

  readonly onEvent = (listener: MessageListener): (() => void) => subscribe(this.messageListeners, listener)

  readonly onConnection = (listener: (state: ConnectionState) => void): (() => void) => {
    const unsubscribe = subscribe(this.connectionListeners, listener)
    listener(this.state)
    return unsubscribe
  }

  readonly dispose = (): void => {
    if (this.disposed) return
    this.disposed = true
    if (this.retry !== undefined) clearTimeout(this.retry)
    const current = this.socket
    this.socket = null
    current?.close(1000, 'The page closed the connection.')
    this.failAll(DISPOSED)
    this.setState('closed')
  }

  private setState(next: ConnectionState): void {
    if (this.state === next) return
    this.state = next
    for (const listener of [...this.connectionListeners]) listener(next)
  }

  private failAll(reason: string): void {
    const failed = [...this.pending.values()]
    this.pending.clear()
    this.queued = []
    for (const { reject } of failed) reject(new Error(reason))
  }

  private receive(data: unknown): void {
    const frame = readFrame(data)
    if (!frame) return
    if (frame.kind === 'push') {
      for (const listener of [...this.messageListeners]) {
        try {
          listener(frame.message)
        } catch (error) {
          console.error('[stepwise] an event listener failed', error)
        }
      }
      return
    }
    const waiting = this.pending.get(frame.id)
    if (!waiting) return
    this.pending.delete(frame.id)
    if (frame.reply.ok) waiting.resolve(frame.reply.output)
    else waiting.reject(new Error(frame.reply.error))
  }

  private readonly connect = (): void => {
    this.retry = undefined
    this.setState('connecting')
    const current: SocketHandle = this.createSocket(this.url, {
      open: () => {
        if (this.socket !== current) return
        this.delay = this.minDelay
        this.setState('open')
        const frames = this.queued
        this.queued = []
        for (const frame of frames) current.send(frame)
      },
      message: (data) => {
        if (this.socket === current) this.receive(data)
      },
      close: () => {
        if (this.socket !== current) return
        this.socket = null
        this.failAll(LOST_CONNECTION)
        this.setState('closed')
        if (this.disposed) return
        this.retry = setTimeout(this.connect, this.delay)
        this.delay = Math.min(this.delay * 2, this.maxDelay)
      },
    })
    this.socket = current
  }
}

export function createWebSocketApi(options: WebSocketApiOptions = {}): WebSocketApi {
  return new WebSocketClient(options)
}
