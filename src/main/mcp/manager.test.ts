import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { McpServerState } from '../../shared/protocol'
import { openStore } from '../store/store'
import type { Store } from '../store/types'
import { sandboxStatus } from '../sandboxing/sandbox-probe'
import { McpManager } from './manager'

/** The manager against real servers: the reference "everything" server and a fixture of ours. */
const ROOT = path.resolve(import.meta.dirname, '../../..')
const everything = {
  command: process.execPath,
  args: [path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
}
const crasher = { command: process.execPath, args: [path.join(ROOT, 'test/fixtures/mcp/crash-server.mjs')] }

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

function setup(servers: Record<string, unknown>, where: 'user' | 'project' = 'user') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-mgr-'))
  const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-repo-')))
  const file = where === 'user' ? path.join(dataDir, 'mcp.json') : path.join(repo, '.mcp.json')
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }))
  const store: Store = openStore(dataDir)
  const notices: [string, McpServerState][] = []
  const manager = new McpManager({ dataDir, repo, store, onStatus: (s, state) => notices.push([s, state]) })
  cleanups.push(() => {
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
    fs.rmSync(repo, { recursive: true, force: true })
  })
  cleanups.push(() => manager.stop())
  return { manager, store, notices, repo, dataDir, file }
}

describe('McpManager', () => {
  it('starts the user’s servers, lists their tools, and keeps enable and allow choices in settings', async () => {
    const { manager, store, notices } = setup({ everything })
    await manager.start()
    expect(notices).toContainEqual(['everything', 'ready'])
    const view = manager.view()
    expect(view.servers[0]).toMatchObject({
      name: 'everything',
      source: 'user',
      state: 'ready',
      transport: 'stdio',
    })
    expect(view.servers[0].tools.find((t) => t.name === 'echo')).toEqual({
      name: 'echo',
      qualified: 'mcp__everything__echo',
      description: 'Echoes back the input string',
      readOnly: true,
      enabled: true,
      allowed: false,
    })
    await manager.setEnabled('everything', 'echo', false)
    manager.setAllowed('everything', 'get-sum', true)
    expect(manager.tools().map((t) => t.name)).not.toContain('mcp__everything__echo')
    expect(manager.isAllowed('everything', 'get-sum')).toBe(true)
    expect(manager.isAllowed('everything', 'get-env')).toBe(false)
    expect(JSON.parse(store.getSetting('mcp')!)).toMatchObject({
      disabledTools: ['everything/echo'],
      allowedTools: ['everything/get-sum'],
    })
    await manager.setEnabled('everything', undefined, false)
    expect(manager.view().servers[0].state).toBe('disabled')
    expect(manager.tools()).toEqual([])
    await expect(manager.restart('everything')).rejects.toThrow('disabled')
    await manager.setEnabled('everything', undefined, true)
    expect(manager.view().servers[0].state).toBe('ready')
  }, 30_000)

  it('updates the tool list when the server says it changed', async () => {
    const { manager, notices } = setup({ crasher })
    await manager.start()
    expect(manager.tools().map((t) => t.mcp.tool)).toEqual(['ping', 'crash', 'write', 'grow'])
    const grow = manager.tools().find((t) => t.mcp.tool === 'grow')!
    const signal = new AbortController().signal
    await grow.call({}, { signal, onProgress: () => {} })
    // The app refreshes on the status notice: by then the list holds the new tool.
    const readies = () => notices.filter(([, state]) => state === 'ready').length
    for (let i = 0; i < 200 && readies() < 2; i++) await new Promise((r) => setTimeout(r, 20))
    expect(readies()).toBe(2)
    expect(manager.tools().map((t) => t.mcp.tool)).toContain('extra')
    expect(manager.log('crasher')).toContain('crasher ready')
  }, 30_000)

  it("starts a project's servers only once that exact file is approved", async () => {
    const { manager, file } = setup({ everything }, 'project')
    await manager.start()
    const before = manager.view()
    expect(before.project).toMatchObject({ state: 'pending', servers: ['everything'] })
    expect(before.servers[0].state).toBe('awaiting-approval')
    expect(manager.tools()).toEqual([])
    const hash = before.project!.hash
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { everything, other: everything } }))
    await expect(manager.approveProject(hash, true)).rejects.toThrow('changed since it was shown')
    const shown = manager.view().project!
    await manager.approveProject(shown.hash, true)
    expect(manager.view().project!.state).toBe('approved')
    expect(manager.tools().some((t) => t.name === 'mcp__everything__echo')).toBe(true)
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { everything } }))
    manager.reload()
    expect(manager.view().project!.state).toBe('changed')
    await manager.start()
    expect(manager.tools()).toEqual([])
  }, 30_000)

  // Where bubblewrap cannot run, `"sandbox": true` refuses to start the server (see launch.ts).
  it.runIf(sandboxStatus().available)(
    'runs a server with "sandbox": true inside the command sandbox',
    async () => {
      const { manager, repo } = setup({ boxed: { ...crasher, sandbox: true } })
      const outside = fs.mkdtempSync(path.join(os.homedir(), '.stepwise-mcp-outside-'))
      cleanups.push(() => fs.rmSync(outside, { recursive: true, force: true }))
      await manager.start()
      expect(manager.view().servers[0]).toMatchObject({ state: 'ready', sandbox: true })
      const write = manager.tools().find((t) => t.mcp.tool === 'write')!
      const signal = new AbortController().signal
      const inside = await write.call({ path: path.join(repo, 'in.txt') }, { signal, onProgress: () => {} })
      expect(inside.result).toEqual({ ok: true, text: 'written' })
      expect(fs.readFileSync(path.join(repo, 'in.txt'), 'utf8')).toBe('written by the server')
      await write.call({ path: path.join(outside, 'out.txt') }, { signal, onProgress: () => {} })
      expect(fs.existsSync(path.join(outside, 'out.txt'))).toBe(false)
    },
    30_000,
  )

  it('falls back to the older SSE transport when Streamable HTTP fails at that URL', async () => {
    // An SSE-only server (the protocol before Streamable HTTP), on 127.0.0.1.
    const transports = new Map<string, SSEServerTransport>()
    const httpServer = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1')
      if (req.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', res)
        transports.set(transport.sessionId, transport)
        const server = new McpServer({ name: 'old', version: '1.0.0' })
        server.registerTool('hello', { description: 'Says hello' }, async () => ({
          content: [{ type: 'text', text: 'hello over SSE' }],
        }))
        void server.connect(transport)
      } else if (req.method === 'POST' && url.pathname === '/messages') {
        const transport = transports.get(url.searchParams.get('sessionId') ?? '')
        if (transport) void transport.handlePostMessage(req, res)
        else res.writeHead(404).end()
      } else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise<void>((resolve) => httpServer.close(() => resolve())))
    httpServer.unref()
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/sse`
    const { manager, dataDir } = setup({ old: { url } })
    await manager.start()
    expect(manager.view().servers[0]).toMatchObject({ state: 'ready', transport: 'http', target: url })
    const hello = manager.tools().find((t) => t.mcp.tool === 'hello')!
    const result = await hello.call({}, { signal: new AbortController().signal, onProgress: () => {} })
    expect(result.result).toEqual({ ok: true, text: 'hello over SSE' })
    expect(fs.readFileSync(path.join(dataDir, 'mcp-logs', 'old.log'), 'utf8')).toContain('trying SSE')
    await manager.stop()
    for (const t of transports.values()) await t.close()
  }, 30_000)

  it('a 401 from Streamable HTTP says "needs sign-in" and the command, without trying SSE', async () => {
    const seen: string[] = []
    const httpServer = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`)
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="mcp"' }).end()
    })
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => new Promise<void>((resolve) => httpServer.close(() => resolve())))
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`
    const { manager, dataDir } = setup({ notion: { url, headers: { 'X-Team': '${TEAM:-core}' } } })
    await manager.start()
    const view = manager.view().servers[0]
    expect(view.state).toBe('needs-sign-in')
    expect(view.error).toBe(
      `MCP server "notion" needs sign-in (URL: ${url}): it answered 401 Unauthorized. Sign in with \`stepwise mcp login notion\`, or "Sign in" on its row in the app's MCP view.`,
    )
    expect(manager.failures()).toEqual([view.error])
    // POSTs only (initialize): no GET of an SSE stream at the same URL.
    expect(seen.every((r) => r.startsWith('POST /mcp'))).toBe(true)
    expect(fs.readFileSync(path.join(dataDir, 'mcp-logs', 'notion.log'), 'utf8')).not.toContain('trying SSE')
  })

  it('maps Cline’s disabled and autoApprove: off until turned on, listed tools allowed', async () => {
    const { manager, store } = setup({ everything: { ...everything, disabled: true, autoApprove: ['echo'] } })
    await manager.start()
    expect(manager.view().servers[0]).toMatchObject({ state: 'disabled', enabled: false })
    await manager.setEnabled('everything', undefined, true)
    expect(manager.view().servers[0]).toMatchObject({ state: 'ready', enabled: true })
    expect(JSON.parse(store.getSetting('mcp') ?? '{}').enabledServers).toEqual(['everything'])
    expect(manager.isAllowed('everything', 'echo')).toBe(true)
    expect(manager.isAllowed('everything', 'add')).toBe(false)
    await manager.setEnabled('everything', undefined, false)
    expect(manager.view().servers[0]).toMatchObject({ state: 'disabled' })
  }, 30_000)

  it('offers a read_resource tool listing the server’s resources, and its instructions marked as its own', async () => {
    const { manager } = setup({ everything })
    await manager.start()
    const reader = manager.tools().find((t) => t.name === 'mcp__everything__read_resource')!
    expect(reader.mcp.readOnly).toBe(true)
    const uri = /Resources: - (\S+)/.exec(reader.description)?.[1]
    expect(uri).toBeTruthy()
    const read = await reader.call({ uri }, { signal: AbortSignal.timeout(10_000), onProgress: () => {} })
    expect(read.result).toMatchObject({ ok: true, content: [{ type: 'resource', uri }] })
    const missing = await reader.call({}, { signal: AbortSignal.timeout(10_000), onProgress: () => {} })
    expect(missing.result).toEqual({
      ok: false,
      error: 'everything/read_resource failed: Give "uri": the resource to read.',
    })
    const instructions = manager.instructions() ?? ''
    expect(instructions).toMatch(/^# MCP server instructions\n.*not the user's/)
    expect(instructions).toContain('## From MCP server "everything"')
  }, 30_000)

  it('runs a server prompt as /mcp__SERVER__PROMPT with its arguments, and says what a bad one lacks', async () => {
    const { manager } = setup({ everything })
    await manager.start()
    const commands = manager.prompts().map((p) => p.command)
    expect(commands).toEqual(
      expect.arrayContaining(['mcp__everything__simple-prompt', 'mcp__everything__args-prompt']),
    )
    expect(await manager.expandPrompt('plain task')).toBe('plain task')
    expect(await manager.expandPrompt('/mcp__everything__simple-prompt')).toMatch(/\S/)
    const withArgs = await manager.expandPrompt('/mcp__everything__args-prompt city=Paris state=Texas')
    expect(withArgs).toContain('Paris')
    await expect(manager.expandPrompt('/mcp__everything__args-prompt')).rejects.toThrow(
      /^\/mcp__everything__args-prompt needs city: write city=…/,
    )
    await expect(manager.expandPrompt('/mcp__everything__nope')).rejects.toThrow(
      /is not a prompt of a running MCP server \(there are: .*\/mcp__everything__simple-prompt/,
    )
  }, 30_000)
})
