import http from 'node:http'

/*
 * The sign-in callback (RFC 8252 §7.3): a one-shot HTTP server on 127.0.0.1 that takes the
 * authorization server's redirect, checks `state` (a redirect we did not start is refused), and
 * hands over the code. It answers the browser with a short page and closes.
 */

export interface Loopback {
  redirectUrl: string
  /** Resolves with the code of the redirect carrying `state`; rejects on an error redirect or the timeout. */
  code(state: string, timeoutMs?: number): Promise<string>
  close(): void
}

const PAGE = (title: string, text: string): string =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font:16px system-ui;margin:3em"><h1>${title}</h1><p>${text}</p></body>`

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

type Waiter = { state: string; resolve(code: string): void; reject(err: Error): void }

/** Hands the redirect's answer to the waiter when its `state` matches; false when it is not ours. */
function settle(waiter: Waiter | undefined, params: URLSearchParams): boolean {
  if (!waiter || params.get('state') !== waiter.state) return false
  const error = params.get('error')
  const code = params.get('code')
  if (error)
    waiter.reject(
      new Error(
        `the authorization server refused: ${error}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}`,
      ),
    )
  else if (code) waiter.resolve(code)
  else waiter.reject(new Error('the authorization server redirected back without a code'))
  return true
}

/** The page the browser is shown after the redirect. */
function answerPage(mine: boolean, params: URLSearchParams): string {
  if (!mine)
    return PAGE(
      'Sign-in not recognised',
      'This answer does not match the sign-in Stepwise started. Start it again.',
    )
  if (params.has('error'))
    return PAGE('Sign-in refused', escapeHtml(params.get('error_description') ?? params.get('error') ?? ''))
  return PAGE('Signed in', 'Stepwise has the answer; you can close this tab.')
}

/** Listens on 127.0.0.1:`port`; a taken port fails naming the setting that picks another. */
async function listen(server: http.Server, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(
              `port ${port} on 127.0.0.1, needed for the sign-in callback, is in use; free it or set "oauth": {"callbackPort": …}`,
            )
          : err,
      ),
    )
    server.listen(port, '127.0.0.1', resolve)
  })
  server.unref()
  const address = server.address()
  if (address === null || typeof address === 'string')
    throw new Error(`The sign-in callback server is not listening on a TCP port (${address}).`)
  return address.port
}

/** Listens on `port` (0: any free one); fails with a clear message when the port is taken. */
export async function startLoopback(port = 0): Promise<Loopback> {
  let waiter: Waiter | undefined
  const early: URLSearchParams[] = []
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/callback') {
      res.writeHead(404).end()
      return
    }
    const params = url.searchParams
    const mine = waiter ? settle(waiter, params) : (early.push(params), true)
    res.writeHead(mine ? 200 : 400, {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
    })
    res.end(answerPage(mine, params))
  })
  const actual = await listen(server, port)
  return {
    redirectUrl: `http://127.0.0.1:${actual}/callback`,
    code(state, timeoutMs = 5 * 60_000) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`)),
          timeoutMs,
        )
        timer.unref?.()
        const done =
          <T>(fn: (v: T) => void) =>
          (v: T) => {
            clearTimeout(timer)
            waiter = undefined
            fn(v)
          }
        waiter = { state, resolve: done(resolve), reject: done(reject) }
        for (const params of early.splice(0)) if (settle(waiter, params)) return
      })
    },
    close() {
      server.close()
      server.closeAllConnections?.()
    },
  }
}
