import { randomBytes } from 'node:crypto'
import http from 'node:http'

/*
 * Node's HTTP client (undici, behind `fetch`) does much of its work the first time only: loading
 * its modules, compiling its HTTP parser (llhttp, WebAssembly that V8 compiles function by
 * function as it first runs), setting up a connection and a streamed answer. Paid inside a
 * session's first steps, it was ~6 ms of the first step's median on the bench tree (30 → 24 ms,
 * sessions 1–5 on fresh data folders, docs/benchmarks.md). `warmHttp` pays it while the session
 * waits on its baseline instead: one streamed exchange with a throwaway server of this process on
 * 127.0.0.1 — never the model's server, which must see only real requests.
 */

let warming: Promise<void> | undefined

/**
 * Loads and exercises the HTTP client now, once per process, for a caller with the thread idle
 * before its first request. Never fails: the first real request then pays as before.
 */
export function warmHttp(): Promise<void> {
  warming ??= (async () => {
    // A data: URL loads fetch's own code without a socket.
    await drain(await fetch('data:,'))
    const server = await startWarmServer()
    try {
      await drain(await fetch(server.url, { method: 'POST', headers: WARM_HEADERS, body: '{}' }))
    } finally {
      server.close()
    }
  })().catch(() => undefined)
  return warming
}

const WARM_HEADERS = { accept: 'text/event-stream', 'content-type': 'application/json' }

/** Read to the end as `readStream` reads an answer (the first release of a reader builds Node's error context, ~5 ms once). */
async function drain(res: Response): Promise<void> {
  if (res.body) for await (const chunk of res.body as AsyncIterable<Uint8Array>) void chunk
}

export interface WarmServer {
  /** The one URL it answers; a secret path, so another local process gets nothing from it. */
  url: string
  /** Stops listening and drops every connection, the client's kept-alive one included. */
  close(): void
}

/**
 * A server on 127.0.0.1 that answers POSTs to its secret path with a short event stream, chunked
 * as a model server streams, and drops any other request unanswered.
 */
export async function startWarmServer(): Promise<WarmServer> {
  const path = `/${randomBytes(16).toString('hex')}`
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== path) {
      req.socket.destroy()
      return
    }
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.write('data: {"warm":true}\n\n')
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const address = server.address()
  if (address === null || typeof address === 'string') {
    server.close()
    throw new Error(`The warm-up server is not listening on a TCP port (${address}).`)
  }
  return {
    url: `http://127.0.0.1:${address.port}${path}`,
    close() {
      server.close()
      server.closeAllConnections()
    },
  }
}
