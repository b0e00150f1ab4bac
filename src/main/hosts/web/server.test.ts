import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWebHost, type WebHost } from './server'
import { fakeService, rawGet, rendererFixture, SECRET, type RendererFixture } from './test-support'

const INDEX = '<!doctype html><title>Stepwise</title><div id="root"></div>'

let fixture: RendererFixture
let host: WebHost
const service = fakeService()

beforeAll(async () => {
  fixture = rendererFixture({
    'index.html': INDEX,
    'favicon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'assets/app-abc123.js': 'console.log("app")',
    'assets/worker.mjs': 'export {}',
    'assets/app-abc123.css': 'body{}',
    'assets/app-abc123.js.map': '{"version":3}',
    'assets/font.woff2': 'wOF2',
    'assets/font.ttf': 'ttf',
    'assets/parser.wasm': '\0asm',
    'assets/logo.png': 'png',
    'manifest.json': '{}',
    'blob.xyz': 'x',
  })
  symlinkSync(fixture.secretPath, join(fixture.dir, 'assets', 'link.txt'))
  host = await startWebHost({ service, rendererDir: fixture.dir })
})

afterAll(async () => {
  await host?.close()
  fixture?.remove()
})

const hostHeader = (): Record<string, string> => ({ host: `127.0.0.1:${host.port}` })
const withToken = (path: string): string => `${path}${path.includes('?') ? '&' : '?'}token=${host.token}`

describe('the web host over HTTP', () => {
  it('prints a loopback URL with a fresh random token', () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${host.token}`)
    expect(host.token).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(host.port).toBeGreaterThan(0)
  })

  it('answers 401 without the token or with a wrong one', async () => {
    for (const path of ['/', '/assets/app-abc123.js', '/?token=wrong', `/?token=${host.token}x`]) {
      const res = await rawGet(host.port, path)
      expect(res.status, path).toBe(401)
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
      expect(res.body).toContain('token')
      expect(res.body).not.toContain('Stepwise</title>')
    }
  })

  it('serves index.html with the token, with its security headers and the token cookie', async () => {
    const res = await rawGet(host.port, withToken('/'))
    expect(res.status).toBe(200)
    expect(res.body).toBe(INDEX)
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(res.headers['cache-control']).toBe('no-store')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['referrer-policy']).toBe('no-referrer')
    expect(res.headers['x-frame-options']).toBe('DENY')
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${host.port} ws://localhost:${host.port}`)
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('[::1]')
    expect(res.headers['set-cookie']).toEqual([
      `stepwise_token_${host.port}=${host.token}; HttpOnly; SameSite=Strict; Path=/`,
    ])
    expect((await rawGet(host.port, withToken('/index.html'))).body).toBe(INDEX)
  })

  it('lets the page fetch its assets with the cookie alone', async () => {
    const page = await rawGet(host.port, withToken('/'))
    const cookie = String(page.headers['set-cookie']).split(';')[0]
    const asset = await rawGet(host.port, '/assets/app-abc123.js', { cookie: `other=1; ${cookie}` })
    expect(asset.status).toBe(200)
    expect(asset.body).toBe('console.log("app")')
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(asset.headers['set-cookie']).toBeUndefined()

    const index = await rawGet(host.port, '/', { cookie })
    expect(index.status).toBe(200)
    expect(index.headers['set-cookie']).toBeUndefined()

    expect((await rawGet(host.port, '/', { cookie: `${cookie}x` })).status).toBe(401)
    const otherPort = `stepwise_token_${host.port + 1}=${host.token}`
    expect((await rawGet(host.port, '/', { cookie: otherPort })).status).toBe(401)
  })

  it('refuses a Host header that is not this server (DNS rebinding)', async () => {
    const evil = await rawGet(host.port, withToken('/'), { host: `evil.example:${host.port}` })
    expect(evil.status).toBe(403)
    expect(evil.body).not.toContain('Stepwise</title>')
    expect((await rawGet(host.port, withToken('/'), { host: `127.0.0.1:${host.port + 1}` })).status).toBe(403)
    expect((await rawGet(host.port, withToken('/'), { host: `localhost:${host.port}` })).status).toBe(200)
    expect((await rawGet(host.port, withToken('/'), { host: `LOCALHOST:${host.port}` })).status).toBe(200)
  })

  it('never serves anything outside the renderer folder', async () => {
    const attempts = [
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/..%2fsecret.txt',
      '/%2e%2e%2fsecret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/..%5csecret.txt',
      '/assets/link.txt',
      `/${encodeURIComponent(fixture.secretPath)}`,
    ]
    for (const path of attempts) {
      const res = await rawGet(host.port, withToken(path), hostHeader())
      expect(res.status, path).toBe(404)
      expect(res.body, path).not.toContain(SECRET)
    }
    // `..` that stays inside the folder is fine.
    expect((await rawGet(host.port, withToken('/assets/..%2findex.html'))).body).toBe(INDEX)
  })

  it('answers 404 for unknown paths, folders and malformed encodings, and 400 for odd targets', async () => {
    for (const path of ['/nope.js', '/assets', '/assets/', '/%zz', '/index.html%00.js']) {
      expect((await rawGet(host.port, withToken(path))).status, path).toBe(404)
    }
    expect((await rawGet(host.port, '*')).status).toBe(400)
  })

  it('sends the right content type for each kind of file', async () => {
    const expected: Record<string, string> = {
      '/favicon.svg': 'image/svg+xml',
      '/assets/app-abc123.js': 'text/javascript; charset=utf-8',
      '/assets/worker.mjs': 'text/javascript; charset=utf-8',
      '/assets/app-abc123.css': 'text/css; charset=utf-8',
      '/assets/app-abc123.js.map': 'application/json; charset=utf-8',
      '/assets/font.woff2': 'font/woff2',
      '/assets/font.ttf': 'font/ttf',
      '/assets/parser.wasm': 'application/wasm',
      '/assets/logo.png': 'image/png',
      '/manifest.json': 'application/json; charset=utf-8',
      '/blob.xyz': 'application/octet-stream',
    }
    for (const [path, type] of Object.entries(expected)) {
      const res = await rawGet(host.port, withToken(path))
      expect(res.status, path).toBe(200)
      expect(res.headers['content-type'], path).toBe(type)
      expect(res.headers['x-content-type-options'], path).toBe('nosniff')
      expect(res.headers['content-security-policy'], path).toBeUndefined()
    }
    expect((await rawGet(host.port, withToken('/favicon.svg'))).headers['cache-control']).toBe('no-cache')
  })

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await rawGet(host.port, withToken('/'), {}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe(String(INDEX.length))
    expect(head.body).toBe('')
    const post = await rawGet(host.port, withToken('/'), {}, 'POST')
    expect(post.status).toBe(405)
    expect(post.headers.allow).toBe('GET, HEAD')
    expect((await rawGet(host.port, withToken('/ws'))).status).toBe(426)
  })
})

describe('starting the web host', () => {
  it('refuses a non-loopback address unless allowRemote is set', async () => {
    for (const address of ['0.0.0.0', '::', '192.168.1.20', 'example.com']) {
      await expect(startWebHost({ service, rendererDir: fixture.dir, host: address })).rejects.toThrow(
        /--allow-remote/,
      )
    }
  })

  it('binds every interface with allowRemote, and still checks the Host header', async () => {
    const remote = await startWebHost({
      service,
      rendererDir: fixture.dir,
      host: '0.0.0.0',
      allowRemote: true,
    })
    try {
      expect(remote.url).toBe(`http://127.0.0.1:${remote.port}/?token=${remote.token}`)
      const path = `/?token=${remote.token}`
      expect((await rawGet(remote.port, path)).status).toBe(200)
      expect((await rawGet(remote.port, path, { host: `evil.example:${remote.port}` })).status).toBe(403)
    } finally {
      await remote.close()
    }
  })

  it('uses the given token and port', async () => {
    const probe = await startWebHost({ service, rendererDir: fixture.dir })
    const port = probe.port
    await probe.close()
    const fixed = await startWebHost({ service, rendererDir: fixture.dir, port, token: 'given token' })
    try {
      expect(fixed.port).toBe(port)
      expect(fixed.url).toBe(`http://127.0.0.1:${port}/?token=given%20token`)
      expect((await rawGet(port, '/?token=given%20token')).status).toBe(200)
      await expect(startWebHost({ service, rendererDir: fixture.dir, port })).rejects.toThrow(
        /already in use/,
      )
    } finally {
      await fixed.close()
    }
  })

  it('says so when the renderer has not been built', async () => {
    await expect(startWebHost({ service, rendererDir: join(fixture.dir, 'assets') })).rejects.toThrow(
      /npm run build/,
    )
  })

  it('closes without closing the service', async () => {
    const other = await startWebHost({ service, rendererDir: fixture.dir })
    await other.close()
    await other.close()
    expect(service.closed).toBe(false)
    await expect(rawGet(other.port, `/?token=${other.token}`)).rejects.toThrow(/ECONNREFUSED/)
  })
})
