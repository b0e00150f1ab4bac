import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'

// The built renderer (out/renderer) as static files. Only regular files inside the folder are served,
// after following symlinks; anything else is a 404, never a listing.

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
}

export const contentTypeOf = (file: string): string =>
  CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream'

/** Answers with a short plain-text body; used for every error. */
export function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  })
  res.end(res.req.method === 'HEAD' ? undefined : body)
}

const within = (root: string, path: string): boolean => path === root || path.startsWith(root + sep)

export interface StaticFiles {
  /** Serves `path` (the percent-encoded request path); `setCookie` is sent with HTML pages only. */
  serve(req: IncomingMessage, res: ServerResponse, path: string, setCookie?: string): Promise<void>
}

export function createStaticFiles(options: { rendererDir: string; csp: string }): StaticFiles {
  const root = resolve(options.rendererDir)
  let realRoot: Promise<string> | undefined

  /** The file a request path names, or null when it is not a regular file inside the folder. */
  async function locate(path: string): Promise<{ file: string; size: number } | null> {
    let decoded: string
    try {
      decoded = decodeURIComponent(path)
    } catch {
      return null
    }
    if (decoded.includes('\0')) return null
    const relative = decoded === '/' ? 'index.html' : decoded.replace(/^\/+/, '')
    const file = resolve(root, relative)
    if (!within(root, file)) return null
    try {
      realRoot ??= realpath(root)
      const [real, base] = await Promise.all([realpath(file), realRoot])
      if (!within(base, real)) return null
      const stats = await stat(real)
      return stats.isFile() ? { file: real, size: stats.size } : null
    } catch {
      return null
    }
  }

  function headersFor(file: string, path: string, size: number, setCookie?: string): Record<string, string> {
    const type = contentTypeOf(file)
    const headers: Record<string, string> = {
      'Content-Type': type,
      'Content-Length': String(size),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    }
    if (type.startsWith('text/html')) {
      headers['Cache-Control'] = 'no-store'
      headers['Content-Security-Policy'] = options.csp
      headers['X-Frame-Options'] = 'DENY'
      if (setCookie) headers['Set-Cookie'] = setCookie
    } else {
      // Vite puts a content hash in every name under assets/, so those never change.
      headers['Cache-Control'] = path.startsWith('/assets/')
        ? 'public, max-age=31536000, immutable'
        : 'no-cache'
    }
    return headers
  }

  return {
    async serve(req, res, path, setCookie) {
      const found = await locate(path)
      if (!found) return sendText(res, 404, 'Not found.\n')
      const { file, size } = found
      res.writeHead(200, headersFor(file, path, size, setCookie))
      if (req.method === 'HEAD') {
        res.end()
        return
      }
      try {
        await pipeline(createReadStream(file), res)
      } catch {
        // The client went away or the file vanished mid-read; the response is already cut short.
        res.destroy()
      }
    },
  }
}
