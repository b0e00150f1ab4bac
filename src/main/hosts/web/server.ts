import { stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { join, resolve } from 'node:path'
import type { CoreService } from '../../service/types'
import { contentSecurityPolicy } from './csp'
import { createGuard, hostWithPort, isLoopbackHost, isWildcardHost, newToken, splitTarget } from './guard'
import { TOKEN_PARAM, WS_PATH } from '../../../shared/protocol/wire'
import { attachWebSockets } from './sockets'
import { createStaticFiles, sendText } from './static'

// The web host of `stepwise serve`: the built renderer over HTTP and the core over a WebSocket
// (protocol in shared/protocol/wire.ts), on loopback by default. Every request and upgrade needs the access token,
// given once in the printed URL (`?token=`) and then kept by the page in an HttpOnly cookie.

export interface WebHostOptions {
  service: CoreService
  /** The built renderer: out/renderer, with index.html and assets/. */
  rendererDir: string
  /** Default 127.0.0.1. Anything that is not loopback needs `allowRemote`. */
  host?: string
  /** Default 0: a free port. */
  port?: number
  allowRemote?: boolean
  /** Default: a fresh random token. */
  token?: string
}

export interface WebHost {
  /** The address to open, token included. */
  url: string
  token: string
  port: number
  /** Closes every socket and the server; the service stays open (its owner closes it). */
  close(): Promise<void>
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      if (error.code === 'EADDRINUSE') {
        reject(new Error(`Port ${port} on ${host} is already in use; choose another with --port.`))
      } else if (error.code === 'EADDRNOTAVAIL') {
        reject(new Error(`${host} is not an address of this machine.`))
      } else {
        reject(error)
      }
    }
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolvePromise()
    })
  })
}

async function assertRendererBuilt(rendererDir: string): Promise<void> {
  const index = join(rendererDir, 'index.html')
  const found = await stat(index).catch(() => null)
  if (!found?.isFile()) {
    throw new Error(`No built renderer at ${rendererDir} (missing index.html). Run \`npm run build\` first.`)
  }
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const host = options.host ?? '127.0.0.1'
  const port = options.port ?? 0
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw new Error(
      `Refusing to listen on ${host}: it is not a loopback address, so anyone who can reach this machine ` +
        'could drive the agent with the token. Pass --allow-remote to do it anyway.',
    )
  }
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`Invalid port ${port}: expected a whole number from 0 to 65535.`)
  }
  const token = options.token ?? newToken()
  if (token === '') throw new Error('The access token must not be empty.')
  const rendererDir = resolve(options.rendererDir)
  await assertRendererBuilt(rendererDir)

  const server = createServer()
  await listen(server, port, host)
  const address = server.address()
  if (address === null || typeof address === 'string')
    throw new Error(`The web server is not listening on a TCP port (${address}).`)
  const bound = address.port

  const guard = createGuard({ host, port: bound, token })
  const files = createStaticFiles({
    rendererDir,
    // 'self' already covers the page's own origin; Chromium rejects IPv6 literals in CSP source lists.
    csp: contentSecurityPolicy(
      guard.hosts.filter((reachable) => !reachable.startsWith('[')).map((reachable) => `ws://${reachable}`),
    ),
  })

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!guard.hostAllowed(req.headers.host)) {
      return sendText(res, 403, 'Forbidden: this server does not answer to that Host.\n')
    }
    const target = splitTarget(req.url)
    if (!target) return sendText(res, 400, 'Bad request.\n')
    const via = guard.authenticate(req, target.query)
    if (!via) {
      return sendText(
        res,
        401,
        'Unauthorized: open the address `stepwise serve` printed; it carries the access token.\n',
      )
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendText(res, 405, 'Method not allowed.\n', { Allow: 'GET, HEAD' })
    }
    if (target.path === WS_PATH) {
      return sendText(res, 426, 'This address takes WebSocket connections only.\n', { Upgrade: 'websocket' })
    }
    await files.serve(req, res, target.path, via === 'query' ? guard.cookie : undefined)
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    onRequest(req, res).catch((error: unknown) => {
      console.error('[stepwise] web host request failed', error)
      if (!res.headersSent) sendText(res, 500, 'Internal error.\n')
      else res.destroy()
    })
  })
  const sockets = attachWebSockets(server, { guard, service: options.service })

  // Wildcard binds are reachable on loopback too; print the address that works from this machine.
  const shown = isWildcardHost(host) ? '127.0.0.1' : host
  const url = `http://${hostWithPort(shown, bound)}/?${TOKEN_PARAM}=${encodeURIComponent(token)}`

  let closing: Promise<void> | undefined
  return {
    url,
    token,
    port: bound,
    close() {
      closing ??= (async () => {
        await sockets.close()
        await new Promise<void>((resolveClose) => {
          server.close(() => resolveClose())
          server.closeAllConnections()
        })
      })()
      return closing
    },
  }
}
