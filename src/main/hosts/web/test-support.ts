// Helpers for the web host's tests: a fake core service, a renderer folder on disk, raw HTTP requests
// (fetch would normalise `..` away) and WebSocket clients that report a refused upgrade's status.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { WebSocket } from 'ws'
import type { HostMessage } from '../../../shared/protocol'
import type { CoreService, InvokeReply } from '../../service/types'

export interface FakeService extends CoreService {
  calls: Array<{ command: unknown; input: unknown }>
  emit(message: HostMessage): void
  readonly subscribers: number
  closed: boolean
}

/** `echo` answers its input, `explode` throws, anything else is refused like the real service does. */
export function fakeService(): FakeService {
  const listeners = new Set<(message: HostMessage) => void>()
  const service: FakeService = {
    calls: [],
    closed: false,
    async answer(command, input): Promise<InvokeReply> {
      service.calls.push({ command, input })
      if (command === 'echo') return { ok: true, output: input }
      if (command === 'explode') throw new Error('boom')
      return { ok: false, error: `Unknown command ${JSON.stringify(command)}.` }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    emit(message) {
      for (const listener of listeners) listener(message)
    },
    get subscribers() {
      return listeners.size
    },
    async close() {
      service.closed = true
    },
  }
  return service
}

export interface RendererFixture {
  /** The renderer folder (index.html, assets/…). */
  dir: string
  /** A file beside the folder that must never be served. */
  secretPath: string
  remove(): void
}

export const SECRET = 'do-not-serve-this-secret'

export function rendererFixture(files: Record<string, string>): RendererFixture {
  const base = mkdtempSync(join(tmpdir(), 'stepwise-web-'))
  const dir = join(base, 'renderer')
  for (const [path, content] of Object.entries(files)) {
    const target = join(dir, path)
    mkdirSync(join(target, '..'), { recursive: true })
    writeFileSync(target, content)
  }
  const secretPath = join(base, 'secret.txt')
  writeFileSync(secretPath, SECRET)
  return { dir, secretPath, remove: () => rmSync(base, { recursive: true, force: true }) }
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One HTTP request with the path sent exactly as given. */
export function rawGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
        }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

export type SocketOutcome = { opened: true; socket: WebSocket } | { opened: false; status: number }

/** Opens a WebSocket; resolves with the socket, or with the HTTP status that refused it. */
export function openSocket(
  url: string,
  options: { origin?: string; headers?: Record<string, string> } = {},
): Promise<SocketOutcome> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { origin: options.origin, headers: options.headers })
    socket.once('open', () => resolve({ opened: true, socket }))
    socket.once('unexpected-response', (_req, res) => {
      resolve({ opened: false, status: res.statusCode ?? 0 })
      res.resume()
      socket.terminate()
    })
    socket.once('error', reject)
  })
}

/** Opens a WebSocket that must be accepted. */
export async function connect(url: string, origin: string): Promise<WebSocket> {
  const outcome = await openSocket(url, { origin })
  if (!outcome.opened) throw new Error(`The upgrade was refused with ${outcome.status}`)
  return outcome.socket
}

/** Collects every JSON message a socket receives. */
export function inbox(socket: WebSocket): {
  messages: unknown[]
  next(predicate?: (message: unknown) => boolean): Promise<unknown>
} {
  const messages: unknown[] = []
  const waiters: Array<{ predicate: (message: unknown) => boolean; resolve: (message: unknown) => void }> = []
  socket.on('message', (data) => {
    const message: unknown = JSON.parse(data.toString())
    messages.push(message)
    for (const waiter of [...waiters]) {
      if (waiter.predicate(message)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(message)
      }
    }
  })
  return {
    messages,
    next(predicate = () => true) {
      const seen = messages.find(predicate)
      if (seen !== undefined) return Promise.resolve(seen)
      return new Promise((resolve) => waiters.push({ predicate, resolve }))
    },
  }
}

/** Resolves with the close code and reason once the socket closes. */
export function closed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve({ code: 1006, reason: '' })
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))
  })
}
