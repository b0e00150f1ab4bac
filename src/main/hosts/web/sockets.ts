import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import type { CoreService, InvokeReply } from '../../service/types'
import type { Guard } from './guard'
import { splitTarget } from './guard'
import {
  BACKPRESSURE_LIMIT,
  CLOSE_GOING_AWAY,
  CLOSE_TOO_FAR_BEHIND,
  parseClientRequest,
  WS_PATH,
  type ServerPush,
  type ServerReply,
} from '../../../shared/protocol/wire'
import { errorMessage } from '../../../shared/errors'

// The WebSocket half of the web host (protocol in shared/protocol/wire.ts). Upgrades are checked here (Host,
// Origin, token) before `ws` sees them; each socket gets its own subscription to the service.

const HEARTBEAT_MS = 30_000
const MAX_FRAME_BYTES = 64 * 1024 * 1024
const CLOSE_INTERNAL_ERROR = 1011
const SHUTDOWN_GRACE_MS = 1_000

export interface WebSockets {
  close(): Promise<void>
}

/** Writes a plain HTTP error on a socket that asked to upgrade, then hangs up. */
function refuse(socket: Duplex, status: number, reason: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  )
}

function serveSocket(socket: WebSocket, service: CoreService): void {
  let open = true
  // Filled in by service.subscribe below; a no-op until then.
  const subscription = { unsubscribe: (): void => undefined }

  const hangUp = (code: number, reason: string): void => {
    if (!open) return
    open = false
    subscription.unsubscribe()
    socket.close(code, reason)
  }

  const canSend = (): boolean => open && socket.readyState === WebSocket.OPEN
  const sendText = (text: string): void => {
    socket.send(text)
    if (socket.bufferedAmount > BACKPRESSURE_LIMIT) {
      hangUp(CLOSE_TOO_FAR_BEHIND, 'Too far behind on events; reconnect and refetch.')
    }
  }

  const send = (message: ServerReply): void => {
    if (!canSend()) return
    let text: string
    try {
      text = JSON.stringify(message)
    } catch (error) {
      text = JSON.stringify({
        id: message.id,
        reply: { ok: false, error: `The reply could not be encoded: ${errorMessage(error)}` },
      })
    }
    sendText(text)
  }

  const push = (message: ServerPush): void => {
    if (!canSend()) return
    let text: string
    try {
      text = JSON.stringify(message)
    } catch (error) {
      // An event the client cannot get: hang up so it reconnects and refetches, rather than lose it.
      console.error('[stepwise] could not encode an event for a WebSocket client', error)
      return hangUp(CLOSE_INTERNAL_ERROR, 'An event could not be encoded; reconnect and refetch.')
    }
    sendText(text)
  }

  const onFrame = async (data: RawData, isBinary: boolean): Promise<void> => {
    if (isBinary) return send({ id: null, reply: { ok: false, error: 'Expected a text frame with JSON.' } })
    const parsed = parseClientRequest(data.toString())
    if (!parsed.ok) return send({ id: parsed.id, reply: { ok: false, error: parsed.error } })
    const { id, command, input } = parsed.request
    let reply: InvokeReply
    try {
      reply = await service.answer(command, input)
    } catch (error) {
      // `answer` should never throw; if it does, the caller still gets an answer.
      reply = { ok: false, error: `${command} failed: ${errorMessage(error)}` }
    }
    send({ id, reply })
  }

  socket.on('message', (data, isBinary) => void onFrame(data, isBinary))
  socket.on('close', () => {
    open = false
    subscription.unsubscribe()
  })
  // A protocol error on the wire: `ws` closes the socket and emits 'close' next.
  socket.on('error', () => undefined)
  subscription.unsubscribe = service.subscribe((message) => push({ message }))
}

export function attachWebSockets(
  server: Server,
  options: { guard: Guard; service: CoreService },
): WebSockets {
  const { guard, service } = options
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES })
  const alive = new WeakSet<WebSocket>()

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined)
    const target = splitTarget(req.url)
    if (!guard.hostAllowed(req.headers.host)) {
      return refuse(socket, 403, 'Forbidden', 'Forbidden: this server does not answer to that Host.\n')
    }
    if (!target || target.path !== WS_PATH) return refuse(socket, 404, 'Not Found', 'Not found.\n')
    if (!guard.originAllowed(req.headers.origin)) {
      return refuse(socket, 403, 'Forbidden', 'Forbidden: WebSocket connections must come from this page.\n')
    }
    if (!guard.authenticate(req, target.query)) {
      return refuse(socket, 401, 'Unauthorized', 'Unauthorized: the access token is missing or wrong.\n')
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  wss.on('connection', (socket: WebSocket) => {
    alive.add(socket)
    socket.on('pong', () => alive.add(socket))
    serveSocket(socket, service)
  })

  // Finds sockets whose peer vanished without a close (a sleeping laptop), so their subscriptions end.
  const heartbeat = setInterval(() => {
    for (const socket of wss.clients) {
      if (!alive.has(socket)) {
        socket.terminate()
        continue
      }
      alive.delete(socket)
      socket.ping()
    }
  }, HEARTBEAT_MS)
  heartbeat.unref()

  return {
    async close() {
      clearInterval(heartbeat)
      await Promise.all(
        [...wss.clients].map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === WebSocket.CLOSED) return resolve()
              socket.once('close', () => resolve())
              socket.close(CLOSE_GOING_AWAY, 'The Stepwise host is shutting down.')
              setTimeout(() => socket.terminate(), SHUTDOWN_GRACE_MS).unref()
            }),
        ),
      )
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}
