import { readFile } from 'node:fs/promises'
import { extname, join, normalize, relative, isAbsolute } from 'node:path'
import { protocol } from 'electron'

// The renderer is served from `app://stepwise/…` rather than file://: Chromium refuses module scripts
// from file://, and a privileged standard scheme gives the page a real origin for the CSP to name.

export const APP_SCHEME = 'app'
export const APP_HOST = 'stepwise'
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`

/** Kept in step with the meta tag in src/renderer/index.html; the header is the one that binds. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "worker-src 'self' blob:",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
}

/** Must run before `app` is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ])
}

/** Maps a request URL to a file inside `rendererDir`, or null when it would leave it. */
export function resolveRendererFile(rendererDir: string, url: string): string | null {
  const { host, pathname } = new URL(url)
  if (host !== APP_HOST) return null
  const path = normalize(join(rendererDir, decodeURIComponent(pathname === '/' ? '/index.html' : pathname)))
  const inside = relative(rendererDir, path)
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? path : null
}

/** Serves the built renderer over `app://`. Call once, after `app` is ready. */
export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = resolveRendererFile(rendererDir, request.url)
    if (!file) return new Response('Not found', { status: 404 })
    try {
      const body = await readFile(file)
      return new Response(body, {
        headers: {
          'content-type': MIME_TYPES[extname(file)] ?? 'application/octet-stream',
          'content-security-policy': CONTENT_SECURITY_POLICY,
          'x-content-type-options': 'nosniff',
        },
      })
    } catch {
      return new Response('Not found', { status: 404 })
    }
  })
}
