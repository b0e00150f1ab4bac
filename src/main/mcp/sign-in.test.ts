import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { headlessBrowser, startOAuthServer } from '../../../test/fixtures/mcp/oauth-server'
import { McpManager } from './manager'

/*
 * Signing in to an OAuth-protected MCP server (docs/mcp.md#sign-in-oauth) against a real
 * authorization server on 127.0.0.1: the sign-in, quiet refresh, and the bad cases the MCP
 * authorization spec's threat notes care about — malformed metadata, a failing token endpoint, a
 * refused refresh — each a clear message with nothing stored half-way.
 */

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup() {
  const server = await startOAuthServer()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-oauth-'))
  fs.writeFileSync(
    path.join(dataDir, 'mcp.json'),
    JSON.stringify({ mcpServers: { notes: { url: server.url, headers: { 'X-Team-Secret': 's3cret' } } } }),
  )
  const settings = new Map<string, string>()
  const store = {
    getSetting: (k: string) => settings.get(k),
    setSetting: (k: string, v: string) => void settings.set(k, v),
  }
  const managers: McpManager[] = []
  const manager = () => {
    const m = new McpManager({ dataDir, store, startTimeoutMs: 10_000 })
    managers.push(m)
    return m
  }
  cleanups.push(async () => {
    for (const m of managers) await m.stop()
    await server.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const stored = () => {
    const file = path.join(dataDir, 'mcp-oauth.json')
    return fs.existsSync(file)
      ? (JSON.parse(fs.readFileSync(file, 'utf8')) as { servers: Record<string, Record<string, unknown>> })
      : undefined
  }
  return { server, dataDir, manager, stored }
}

function view(m: McpManager) {
  return m.view().servers[0]
}

describe('MCP sign-in (OAuth)', () => {
  it('needs sign-in, signs in through the loopback, stores tokens 0600 outside logs, and reuses them', async () => {
    const { server, dataDir, manager, stored } = await setup()
    const first = manager()
    await first.start()
    expect(view(first)).toMatchObject({ state: 'needs-sign-in', signedIn: false })
    // Nothing was registered or stored by a session that could not ask the user.
    expect(server.log).not.toContain('POST /register')
    expect(stored()).toBeUndefined()

    const opened: string[] = []
    const signedIn = await first.signIn('notes', (url, name) => {
      opened.push(name)
      return headlessBrowser(url)
    })
    expect(signedIn).toMatchObject({ state: 'ready', signedIn: true })
    expect(signedIn.tools.map((t) => t.name)).toEqual(['whoami'])
    expect(opened).toEqual(['notes'])
    // RFC 8707: the resource is named; PKCE S256; the scope from the resource's metadata.
    const auth = server.authorizations[0]
    expect(auth.get('resource')).toBe(server.url)
    expect(auth.get('code_challenge_method')).toBe('S256')
    expect(auth.get('scope')).toBe('read')
    expect(auth.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)

    const file = path.join(dataDir, 'mcp-oauth.json')
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const record = stored()!.servers.notes
    expect(Object.keys(record).sort()).toEqual(['client', 'discovery', 'expiresAt', 'tokens', 'url'])
    const token = (record.tokens as { access_token: string }).access_token
    expect(fs.readFileSync(path.join(dataDir, 'mcp-logs', 'notes.log'), 'utf8')).not.toContain(token)
    expect(JSON.stringify(first.view())).not.toContain(token)

    // A new session uses the stored sign-in without asking.
    const second = manager()
    await second.start()
    expect(view(second)).toMatchObject({ state: 'ready', signedIn: true })
    const result = await second
      .tools()[0]
      .call({}, { signal: AbortSignal.timeout(5000), onProgress: () => {} })
    expect(result.result).toEqual({ ok: true, text: 'signed in' })
    expect(server.authorizations).toHaveLength(1)
    // The configured header reached the MCP server, and nothing at the authorization server's origin.
    // (The resource's own metadata is at its origin too.)
    expect([...server.sawSecret].sort()).toEqual(['/.well-known/oauth-protected-resource/mcp', '/mcp'])

    expect(await second.signOut('notes')).toBe(true)
    expect(stored()!.servers).toEqual({})
    expect(view(second).signedIn).toBe(false)
  }, 30_000)

  it('refreshes an expired access token quietly', async () => {
    const { server, manager } = await setup()
    await manager().signIn('notes', headlessBrowser)
    server.expireAccessTokens()
    const later = manager()
    await later.start()
    expect(view(later).state).toBe('ready')
    expect(server.log.filter((l) => l === 'token refresh_token')).toHaveLength(1)
    expect(server.authorizations).toHaveLength(1)
  }, 30_000)

  it('a refused refresh says needs sign-in and forgets the dead tokens', async () => {
    const { server, manager, stored } = await setup()
    await manager().signIn('notes', headlessBrowser)
    server.expireAccessTokens()
    server.faults.refreshFails = true
    const later = manager()
    await later.start()
    expect(view(later)).toMatchObject({ state: 'needs-sign-in', signedIn: false })
    expect(view(later).error).toContain('stepwise mcp login notes')
    expect(stored()!.servers.notes.tokens).toBeUndefined()
    // The registration is still good: the next sign-in reuses it.
    expect(stored()!.servers.notes.client).toBeDefined()
  }, 30_000)

  it('a token endpoint that errors fails the sign-in clearly and stores nothing', async () => {
    const { server, manager, stored } = await setup()
    server.faults.tokenEndpointFails = true
    const m = manager()
    const result = await m.signIn('notes', headlessBrowser)
    expect(result.state).toBe('failed')
    expect(result.error).toMatch(
      /did not start \(URL: .*\): signing in failed at http:\/\/127.0.0.1:\d+\/token: database down\.$/,
    )
    expect(stored()).toBeUndefined()
  }, 30_000)

  it('malformed authorization-server metadata fails clearly and stores nothing', async () => {
    // The MCP authorization spec has clients validate metadata before use (Security Considerations).
    const { server, manager, stored } = await setup()
    server.faults.malformedMetadata = true
    const result = await manager().signIn('notes', headlessBrowser)
    expect(result.state).toBe('failed')
    expect(result.error).toMatch(
      /did not start \(URL: .*\): signing in failed at http:\/\/127.0.0.1:\d+\/.well-known\/oauth-authorization-server: /,
    )
    expect(server.authorizations).toHaveLength(0)
    expect(stored()).toBeUndefined()
  }, 30_000)

  it("never reads a key file a project's .mcp.json names (a cloned repository pointing at ~/.ssh)", async () => {
    const { server, dataDir } = await setup()
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-oauth-repo-'))
    const keyFile = path.join(dataDir, 'id_canary')
    fs.writeFileSync(keyFile, 'CANARY-PRIVATE-KEY')
    const entry = {
      url: server.url,
      oauth: { clientId: 'c', privateKeyFile: keyFile, grantType: 'client_credentials' },
    }
    fs.writeFileSync(path.join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { notes: entry } }))
    fs.rmSync(path.join(dataDir, 'mcp.json'))
    const settings = new Map<string, string>()
    const store = {
      getSetting: (k: string) => settings.get(k),
      setSetting: (k: string, v: string) => void settings.set(k, v),
    }
    const m = new McpManager({ dataDir, repo, store, startTimeoutMs: 10_000 })
    cleanups.push(async () => {
      await m.stop()
      fs.rmSync(repo, { recursive: true, force: true })
    })
    await m.start()
    await m.approveProject(m.view().project!.hash, true)
    const notes = m.view().servers.find((s) => s.name === 'notes')
    expect(notes?.state).not.toBe('ready')
    expect(notes?.error).toContain('only from your own MCP configuration')
    expect(server.log.join('\n')).not.toContain('token')
  }, 30_000)
})
