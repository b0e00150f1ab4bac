import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, relative } from 'node:path'

const MIME_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
}

export interface StaticServer {
  url: string
  close(): Promise<void>
}

/** Serves `root` read-only on 127.0.0.1 at a free port; the built renderer needs nothing more. */
export async function serveStatic(root: string): Promise<StaticServer> {
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname)
    const file = normalize(join(root, pathname === '/' ? 'index.html' : pathname))
    if (relative(root, file).startsWith('..')) {
      response.writeHead(403).end()
      return
    }
    stat(file).then(
      (info) => {
        if (!info.isFile()) throw new Error('not a file')
        response.writeHead(200, { 'content-type': MIME_TYPES[extname(file)] ?? 'application/octet-stream' })
        createReadStream(file).pipe(response)
      },
      () => response.writeHead(404).end(),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  }
}
