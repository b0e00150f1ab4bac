import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { describeTarget, loadConfigFile, mergeServers, parseConfigText } from './config'
import { expandEnv } from './launch'
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
    expect(parseConfigText('{"servers": {}}', 'b.json', 'cli').errors).toEqual([
      'b.json: expected {"mcpServers": {"NAME": {"command": …} or {"url": …}}}.',
    ])
    const loaded = parseConfigText(
      JSON.stringify({
        mcpServers: { ok: { command: 'x' }, none: {}, typo: { command: 'x', arg: [] }, url: { url: 'nope' } },
      }),
      'c.json',
      'cli',
    )
    expect(loaded.servers.map((s) => s.name)).toEqual(['ok'])
    expect(loaded.errors).toEqual([
      'c.json: server "none": needs "command" (stdio) or "url" (HTTP).',
      expect.stringMatching(/^c\.json: server "typo": entry: Unrecognized key: "arg"/),
      expect.stringMatching(/^c\.json: server "url": "url": Invalid URL/),
    ])
  })

  it('a missing user file is no error; a missing --mcp-config file is', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-mcp-cfg-'))
    dirs.push(dir)
    expect(loadConfigFile(path.join(dir, 'mcp.json'), 'user', { optional: true })).toEqual({
      servers: [],
      errors: [],
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
    const env = { TOKEN: 'secret' }
    expect(expandEnv('Bearer ${TOKEN}', 'user', env)).toBe('Bearer secret')
    expect(expandEnv('${TOKEN}', 'project', env)).toBe('${TOKEN}')
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
