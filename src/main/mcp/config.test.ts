import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { describeTarget, loadConfigFile, mergeServers, parseConfigText } from './config'
import { expandEnv, httpTarget } from './launch'
import { convertResult } from './results'
import { capDescription, qualifiedName } from './tools'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })))

describe('MCP configuration files', () => {
  it('reads the shape Claude Code, Cursor and Cline use', () => {
    const text = JSON.stringify({
      mcpServers: {
        fs: { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: 'sub' },
        web: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' } },
        old: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
      },
    })
    const loaded = parseConfigText(text, '/u/mcp.json', 'user')
    expect(loaded.errors).toEqual([])
    expect(loaded.warnings).toEqual([])
    expect(loaded.servers).toEqual([
      {
        name: 'fs',
        source: 'user',
        file: '/u/mcp.json',
        spec: { command: 'npx', args: ['-y', 'server'], env: { A: '1' }, cwd: 'sub', sandbox: false },
      },
      {
        name: 'web',
        source: 'user',
        file: '/u/mcp.json',
        spec: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer x' } },
      },
      {
        name: 'old',
        source: 'user',
        file: '/u/mcp.json',
        spec: { type: 'sse', url: 'http://127.0.0.1:9/sse', headers: {} },
      },
    ])
    expect(describeTarget(loaded.servers[0].spec)).toBe('npx -y server')
  })

  it('names the file and the problem, and a bad entry spoils only itself', () => {
    expect(parseConfigText('{', 'a.json', 'cli').errors[0]).toMatch(/^a\.json: not valid JSON/)
    expect(parseConfigText('{"servers": []}', 'b.json', 'cli').errors).toEqual([
      'b.json: expected {"mcpServers": {"NAME": {"command": …} or {"url": …}}} (or VS Code\'s "servers").',
    ])
    const loaded = parseConfigText(
      JSON.stringify({
        mcpServers: { ok: { command: 'x' }, none: {}, typo: { command: 'x', arg: [] }, url: { url: 'nope' } },
      }),
      'c.json',
      'cli',
    )
    // An unknown key (here a typo) is ignored with a warning naming it; the entry is kept.
    expect(loaded.servers.map((s) => s.name)).toEqual(['ok', 'typo'])
    expect(loaded.errors).toEqual([
      'c.json: server "none": needs "command" (stdio) or "url" (HTTP).',
      expect.stringMatching(/^c\.json: server "url": "url": Invalid URL/),
    ])
    expect(loaded.warnings).toEqual(['c.json: server "typo": ignored "arg" (not used by Stepwise).'])
  })

  it('a missing user file is no error; a missing --mcp-config file is', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-cfg-'))
    dirs.push(dir)
    expect(loadConfigFile(path.join(dir, 'mcp.json'), 'user', { optional: true })).toEqual({
      servers: [],
      errors: [],
      warnings: [],
    })
    expect(loadConfigFile(path.join(dir, 'gone.json'), 'cli').errors[0]).toContain(
      'gone.json: cannot be read',
    )
  })

  it('a project file never overrides a server the user configured', () => {
    const mk = (name: string, source: 'user' | 'cli' | 'project', command: string) => ({
      name,
      source,
      file: source,
      spec: { command, args: [], env: {}, sandbox: false },
    })
    const merged = mergeServers(
      [mk('a', 'user', 'mine')],
      [mk('b', 'cli', 'cli')],
      [mk('a', 'project', 'theirs'), mk('c', 'project', 'p')],
    )
    expect(merged.map((s) => [s.name, s.source])).toEqual([
      ['a', 'user'],
      ['b', 'cli'],
      ['c', 'project'],
    ])
  })

  it('${VAR} reads the environment in the user’s files only', () => {
    const env = { TOKEN: 'secret', EMPTY: '' }
    expect(expandEnv('Bearer ${TOKEN}', 'user', env)).toBe('Bearer secret')
    expect(expandEnv('${TOKEN}', 'project', env)).toBe('${TOKEN}')
    expect(expandEnv('${NOPE:-fallback}/${TOKEN:-x}', 'cli', env)).toBe('fallback/secret')
    expect(expandEnv('${EMPTY:-d}|${EMPTY}', 'user', env)).toBe('d|')
    expect(expandEnv('${NOPE:-d}', 'project', env)).toBe('${NOPE:-d}')
  })

  it('expands url and headers of the user’s and CLI files, never of a project’s, and names a missing variable', () => {
    const text = JSON.stringify({
      mcpServers: {
        gh: {
          url: 'https://${HOST:-api.example.com}/mcp',
          headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
        },
      },
    })
    const env = { GITHUB_TOKEN: 'ghp_1' }
    const [user] = parseConfigText(text, 'u.json', 'user').servers
    const [project] = parseConfigText(text, '.mcp.json', 'project').servers
    const target = httpTarget(user as never, env)
    expect(target.url.href).toBe('https://api.example.com/mcp')
    expect(target.headers).toEqual({ Authorization: 'Bearer ghp_1' })
    // A project's file cannot ask for a variable by name: its text stays literal (here not even a valid URL).
    expect(() => httpTarget(project as never, env)).toThrow(/is not a valid URL/)
    expect(() => httpTarget(user as never, {})).toThrow(
      'its url or headers in u.json name ${GITHUB_TOKEN}, not set in your environment',
    )
  })

  it('reads other clients’ entries: VS Code servers/type, Cline disabled/autoApprove/timeout, Claude Code oauth', () => {
    const vscode = parseConfigText(
      JSON.stringify({
        servers: {
          gh: { type: 'http', url: 'https://api.githubcopilot.com/mcp/', envFile: '.env', gallery: true },
          local: { type: 'stdio', command: 'node', args: ['s.js'] },
        },
      }),
      'vscode.json',
      'user',
    )
    expect(vscode.errors).toEqual([])
    expect(vscode.servers.map((s) => [s.name, s.spec])).toEqual([
      ['gh', { type: 'http', url: 'https://api.githubcopilot.com/mcp/', headers: {} }],
      ['local', { type: 'stdio', command: 'node', args: ['s.js'], env: {}, sandbox: false }],
    ])
    expect(vscode.warnings).toEqual([
      'vscode.json: server "gh": ignored "envFile", "gallery" (not used by Stepwise).',
    ])
    const cline = parseConfigText(
      JSON.stringify({
        mcpServers: {
          fetch: {
            command: 'uvx',
            args: ['mcp-server-fetch'],
            disabled: true,
            autoApprove: ['fetch'],
            timeout: 120,
          },
          remote: { serverUrl: 'https://x.example/sse', transportType: 'sse', alwaysAllow: ['a'] },
          claude: {
            type: 'http',
            url: 'https://mcp.notion.com/mcp',
            oauth: { clientId: 'abc', callbackPort: 8080 },
          },
        },
      }),
      'cline.json',
      'user',
    )
    expect(cline.errors).toEqual([])
    expect(cline.warnings).toEqual([])
    expect(cline.servers.map((s) => [s.name, s.spec, s.options])).toEqual([
      [
        'fetch',
        { command: 'uvx', args: ['mcp-server-fetch'], env: {}, sandbox: false },
        { disabled: true, autoApprove: ['fetch'], timeout: 120 },
      ],
      ['remote', { type: 'sse', url: 'https://x.example/sse', headers: {} }, { autoApprove: ['a'] }],
      [
        'claude',
        {
          type: 'http',
          url: 'https://mcp.notion.com/mcp',
          headers: {},
          oauth: { clientId: 'abc', callbackPort: 8080 },
        },
        undefined,
      ],
    ])
    // A wrong value for a key that is read still spoils the entry, naming the key.
    expect(
      parseConfigText(
        JSON.stringify({ mcpServers: { x: { command: 'a', disabled: 'yes' } } }),
        'd.json',
        'user',
      ).errors,
    ).toEqual([expect.stringMatching(/^d\.json: server "x": "disabled": /)])
  })
})

describe('MCP tool names, descriptions and results', () => {
  it('names tools mcp__SERVER__TOOL within the providers’ limits', () => {
    expect(qualifiedName('everything', 'get-sum')).toBe('mcp__everything__get-sum')
    expect(qualifiedName('s', 'a.b c')).toBe('mcp__s__a_b_c')
    expect(qualifiedName('s', 'x'.repeat(100))).toHaveLength(64)
  })

  it('caps untrusted descriptions', () => {
    const capped = capDescription('word '.repeat(1000))
    expect(capped.length).toBe(1024)
    expect(capped.endsWith('…')).toBe(true)
  })

  it('passes text, describes images and binary resources, and passes structured content on', () => {
    const converted = convertResult(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
        ],
        structuredContent: { n: 1 },
      },
      'srv',
      'tool',
    )
    expect(converted.attachments).toEqual([{ kind: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }])
    expect(converted.result).toEqual({
      ok: true,
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', mimeType: 'image/png', note: expect.stringContaining('you cannot see it') },
        { type: 'resource', uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A' },
        { type: 'resource', uri: 'file:///b.bin', note: 'Binary content (3 B), not shown.' },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
      ],
      structured: { n: 1 },
    })
    expect(
      convertResult({ content: [{ type: 'text', text: 'bad input' }], isError: true }, 'srv', 'tool').result,
    ).toEqual({
      ok: false,
      error: 'srv/tool failed: bad input',
    })
  })
})
