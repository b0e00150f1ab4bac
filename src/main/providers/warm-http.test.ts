import { describe, expect, it } from 'vitest'
import { until } from '../store/testing/helpers'
import { startWarmServer, warmHttp } from './warm-http'

/** How many TCP handles (servers and sockets) this process holds open: none but the tests' own. */
function tcpHandles(): number {
  return process.getActiveResourcesInfo().filter((r) => r.startsWith('TCP')).length
}

/** Until this process holds no TCP handle; a socket left open fails the test after 2 s. */
const noTcpHandles = (): Promise<boolean> => until('no TCP handle open', () => tcpHandles() === 0, 2_000)

describe('startWarmServer', () => {
  it('streams a short answer to a POST on its secret path, and nothing to anything else', async () => {
    const server = await startWarmServer()
    try {
      const url = new URL(server.url)
      expect(url.hostname).toBe('127.0.0.1')
      expect(url.pathname).toMatch(/^\/[0-9a-f]{32}$/)

      const res = await fetch(server.url, { method: 'POST', body: '{}' })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/event-stream')
      expect(await res.text()).toBe('data: {"warm":true}\n\ndata: [DONE]\n\n')

      await expect(fetch(server.url)).rejects.toThrow()
      await expect(fetch(`${url.origin}/`, { method: 'POST', body: '{}' })).rejects.toThrow()
    } finally {
      server.close()
    }
  })

  it('stops listening and drops the kept-alive connection when closed', async () => {
    await expect(noTcpHandles()).resolves.toBe(true)
    const server = await startWarmServer()
    await (await fetch(server.url, { method: 'POST', body: '{}' })).text()
    expect(tcpHandles()).toBeGreaterThan(0)
    server.close()
    await expect(noTcpHandles()).resolves.toBe(true)
    await expect(fetch(server.url, { method: 'POST', body: '{}' })).rejects.toThrow()
  })
})

describe('warmHttp', () => {
  it('runs once per process and leaves no server or socket open', async () => {
    await expect(noTcpHandles()).resolves.toBe(true)
    const first = warmHttp()
    expect(warmHttp()).toBe(first)
    await expect(first).resolves.toBeUndefined()
    await expect(noTcpHandles()).resolves.toBe(true)
  })
})
