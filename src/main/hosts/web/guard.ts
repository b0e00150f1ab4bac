import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { TOKEN_PARAM } from '../../../shared/protocol/wire'

// Who may talk to the web host: a request must name this server in its Host header (a DNS-rebinding
// guard), carry the token (query or cookie), and a WebSocket upgrade must come from this server's own
// origin (a page on any other site cannot open it, even though browsers send the cookie along).

/** A fresh access token: 24 random bytes, URL-safe. */
export const newToken = (): string => randomBytes(24).toString('base64url')

/**
 * The token cookie. Cookies are shared by every port of a host, so the name carries the port: two
 * `stepwise serve` instances on one machine do not overwrite each other's token.
 */
export const tokenCookieName = (port: number): string => `stepwise_token_${port}`

/** Constant-time comparison of two tokens of any length. */
export function tokensEqual(presented: string, expected: string): boolean {
  const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest()
  return timingSafeEqual(digest(presented), digest(expected))
}

const unbracket = (host: string): string => host.replace(/^\[(.*)\]$/, '$1').toLowerCase()

/** 127.0.0.0/8, ::1 and localhost: reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = unbracket(host)
  return (
    bare === 'localhost' ||
    bare === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
  )
}

/** 0.0.0.0 and ::: every interface of the machine. */
export const isWildcardHost = (host: string): boolean => ['0.0.0.0', '::', ''].includes(unbracket(host))

/** `host:port` as it appears in a Host header or a URL: IPv6 addresses in brackets. */
export const hostWithPort = (host: string, port: number): string => {
  const bare = unbracket(host)
  return `${isIP(bare) === 6 ? `[${bare}]` : bare}:${port}`
}

/** Every `host:port` a browser may use to reach a server bound to `bindHost`. */
export function reachableHosts(bindHost: string, port: number): string[] {
  const names = new Set<string>()
  if (isLoopbackHost(bindHost) || isWildcardHost(bindHost)) {
    for (const name of ['127.0.0.1', 'localhost', '::1']) names.add(name)
  }
  if (isWildcardHost(bindHost)) {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(address.address.replace(/%.*$/, ''))
    }
  } else {
    names.add(unbracket(bindHost))
  }
  return [...names].map((name) => hostWithPort(name, port))
}

/** A request target split into its (still percent-encoded) path and its query. */
export interface RequestTarget {
  path: string
  query: URLSearchParams
}

/** Splits `req.url` without normalising it; null for anything but an origin-form target (`/…`). */
export function splitTarget(url: string | undefined): RequestTarget | null {
  if (!url || !url.startsWith('/')) return null
  const at = url.indexOf('?')
  const path = at === -1 ? url : url.slice(0, at)
  const query = new URLSearchParams(at === -1 ? '' : url.slice(at + 1))
  return { path, query }
}

/** The value of one cookie in a Cookie header, decoded; undefined when absent or malformed. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=')
    if (at === -1 || part.slice(0, at).trim() !== name) continue
    try {
      return decodeURIComponent(part.slice(at + 1).trim())
    } catch {
      return undefined
    }
  }
  return undefined
}

export interface Guard {
  /** Every `host:port` this server answers to (lower case). */
  readonly hosts: readonly string[]
  /** The Set-Cookie value that stores the token for later requests from the page. */
  readonly cookie: string
  hostAllowed(hostHeader: string | undefined): boolean
  originAllowed(originHeader: string | undefined): boolean
  /** How the request proved it holds the token, or null when it did not. */
  authenticate(req: IncomingMessage, query: URLSearchParams): 'query' | 'cookie' | null
}

export function createGuard(options: { host: string; port: number; token: string }): Guard {
  const { port, token } = options
  const hosts = reachableHosts(options.host, port)
  const hostSet = new Set(hosts)
  const origins = new Set(hosts.map((host) => `http://${host}`))
  const cookieName = tokenCookieName(port)
  return {
    hosts,
    cookie: `${cookieName}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`,
    hostAllowed: (hostHeader) => hostHeader !== undefined && hostSet.has(hostHeader.toLowerCase()),
    originAllowed: (originHeader) => originHeader !== undefined && origins.has(originHeader.toLowerCase()),
    authenticate(req, query) {
      const fromQuery = query.get(TOKEN_PARAM)
      if (fromQuery !== null && tokensEqual(fromQuery, token)) return 'query'
      const fromCookie = readCookie(req.headers.cookie, cookieName)
      if (fromCookie !== undefined && tokensEqual(fromCookie, token)) return 'cookie'
      return null
    },
  }
}
