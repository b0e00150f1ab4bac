/**
 * MCP servers that go wrong, through the real CLI: one that crashes mid-call (restarted,
 * the model told), one that never starts (named with its command), a bad config file
 * (named with its problem; the rest works), a project `.mcp.json` that waits for the
 * user's approval (and asks again once changed), and Streamable HTTP against the SDK's
 * own server on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, runCli } from './cli-harness'
import { everything, FIXTURES, mcpSession, ofType, Temps, toolNames, writeConfig } from './mcp-support'

let CLI = ''
const temps = new Temps()

beforeAll(() => {
  CLI = buildCli('stepwise-mcp-faults-e2e')
}, 180_000)
afterAll(() => temps.cleanup())

const call = (id: string, name: string, args: object = {}) => ({ toolCalls: [{ id, name, arguments: args }] })
const node = (script: string) => ({ command: process.execPath, args: [path.join(FIXTURES, script)] })

describe('MCP servers that fail', () => {
  it('a server that crashes mid-call: the model gets a clear error, the server restarts, the session goes on', async () => {
    const repo = temps.repo()
    const dataDir = temps.dir('stepwise-mcp-data-')
    const config = writeConfig(temps.dir('stepwise-mcp-conf-'), { crasher: node('crash-server.mjs') })
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [
        call('before', 'mcp__crasher__ping'),
        call('boom', 'mcp__crasher__crash'),
        { delayMs: 1500, ...call('after', 'mcp__crasher__ping') },
        { text: 'recovered' },
      ],
      ['--approve', 'full-auto', '--mcp-config', config],
    )
    expect(s.code, s.stderr).toBe(0)
    const finished = ofType(s.events, 'tool.finished')
    expect(
      finished.map((e) => [e.callId, e.ok]),
      JSON.stringify(finished.map((e) => e.result)),
    ).toEqual([
      ['before', true],
      ['boom', false],
      ['after', true],
    ])
    const error = String((finished[1].result as { error: string }).error)
    expect(error).toContain('MCP server "crasher" exited during the call')
    expect(error).toContain('crasher: about to fail')
    const pid = (r: unknown) => String((r as { text: string }).text).replace(/\D/g, '')
    expect(pid(finished[2].result)).not.toBe(pid(finished[0].result))
    expect(s.events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'done' })
    expect(s.events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'done' })
    // Its stderr is in its own log in the data folder.
    const log = fs.readFileSync(path.join(dataDir, 'mcp-logs', 'crasher.log'), 'utf8')
    expect(log).toContain('crasher: about to fail')
    expect(log.match(/starting:/g)).toHaveLength(2)
  }, 60_000)

  it('a server that never starts is named with its command and stderr; the session goes on without it', async () => {
    const repo = temps.repo()
    const dataDir = temps.dir('stepwise-mcp-data-')
    const config = writeConfig(temps.dir('stepwise-mcp-conf-'), {
      silent: node('silent-server.mjs'),
      missing: { command: 'no-such-mcp-server-binary', args: ['--flag'] },
      everything,
    })
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [call('e', 'mcp__everything__echo', { message: 'still here' }), { text: 'ok' }],
      ['--approve', 'full-auto', '--mcp-config', config],
      { env: { STEPWISE_MCP_START_TIMEOUT_MS: '2000' } },
    )
    expect(s.code, s.stderr).toBe(0)
    expect(s.stderr).toContain(
      `MCP server "silent" did not start (command: ${process.execPath} ${path.join(FIXTURES, 'silent-server.mjs')}): it did not answer "initialize" within 2 s.`,
    )
    expect(s.stderr).toContain('silent: booting, loading a huge index')
    expect(s.stderr).toContain(
      'MCP server "missing" did not start (command: no-such-mcp-server-binary --flag): the program was not found',
    )
    const names = toolNames(s.requests[0])
    expect(names).toContain('mcp__everything__echo')
    expect(names.some((n) => n.startsWith('mcp__silent__') || n.startsWith('mcp__missing__'))).toBe(false)
    expect(ofType(s.events, 'tool.finished')[0]).toMatchObject({ ok: true })
  }, 60_000)

  it('a bad config file is named with its problem, and nothing else breaks', async () => {
    const repo = temps.repo()
    const dataDir = temps.dir('stepwise-mcp-data-')
    const dir = temps.dir('stepwise-mcp-conf-')
    const good = writeConfig(dir, { everything })
    const broken = path.join(dir, 'broken.json')
    fs.writeFileSync(broken, '{"mcpServers": {"x": {"command": "a",}}}')
    const wrongShape = writeConfig(
      dir,
      { bad: { command: 'x', args: 'not-a-list' }, 'bad name!': everything },
      'shape.json',
    )
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [call('e', 'mcp__everything__echo', { message: 'fine' }), { text: 'ok' }],
      ['--approve', 'full-auto', '--mcp-config', broken, '--mcp-config', wrongShape, '--mcp-config', good],
    )
    expect(s.code, s.stderr).toBe(0)
    expect(s.stderr).toContain(`MCP configuration problem: ${broken}: not valid JSON`)
    expect(s.stderr).toMatch(new RegExp(`${wrongShape}: server "bad": "args": .*array`))
    expect(s.stderr).toContain(`${wrongShape}: server name "bad name!" may only hold letters`)
    expect(ofType(s.events, 'tool.finished')[0]).toMatchObject({ ok: true, result: { text: 'Echo: fine' } })
    // `mcp list` reports the same problem and fails, listing what it could read.
    const list = await runCli(CLI, [
      'mcp',
      'list',
      '--repo',
      repo,
      '--data-dir',
      dataDir,
      '--mcp-config',
      broken,
      '--mcp-config',
      good,
    ])
    expect(list.code).toBe(1)
    expect(list.stderr).toContain(`${broken}: not valid JSON`)
    expect(list.stdout).toContain('everything  ready')
  }, 60_000)
})

describe('where servers come from', () => {
  it("a project's .mcp.json starts nothing until approved, and asks again once changed", async () => {
    const project = { mcpServers: { proj: everything } }
    const repo = temps.repo({ '.mcp.json': JSON.stringify(project) })
    const dataDir = temps.dir('stepwise-mcp-data-')
    const list = async () => {
      const r = await runCli(CLI, ['mcp', 'list', '--json', '--repo', repo, '--data-dir', dataDir])
      return JSON.parse(r.stdout) as {
        servers: { name: string; state: string; source: string; tools: unknown[] }[]
        project: { state: string; hash: string; servers: string[] }
      }
    }
    const pending = await list()
    expect(pending.project).toMatchObject({ state: 'pending', servers: ['proj'] })
    expect(pending.servers).toEqual([
      expect.objectContaining({ name: 'proj', source: 'project', state: 'awaiting-approval', tools: [] }),
    ])
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [{ text: 'nothing to do' }],
      ['--approve', 'full-auto'],
    )
    expect(s.stderr).toContain(
      '.mcp.json declares MCP servers (proj) that are not started until you approve this file',
    )
    expect(toolNames(s.requests[0]).some((n) => n.startsWith('mcp__'))).toBe(false)

    const approved = await runCli(CLI, ['mcp', 'approve', '--repo', repo, '--data-dir', dataDir])
    expect(approved.stdout).toContain(': approved')
    const after = await list()
    expect(after.project.state).toBe('approved')
    expect(after.servers[0].state).toBe('ready')
    expect(after.servers[0].tools.length).toBeGreaterThan(5)

    fs.writeFileSync(
      path.join(repo, '.mcp.json'),
      JSON.stringify({ mcpServers: { proj: everything, more: everything } }),
    )
    const changed = await list()
    expect(changed.project.state).toBe('changed')
    expect(changed.servers.every((srv) => srv.state === 'awaiting-approval')).toBe(true)
  }, 90_000)

  it('talks Streamable HTTP to a server on 127.0.0.1, with the configured headers', async () => {
    const child: ChildProcess = spawn(process.execPath, [path.join(FIXTURES, 'http-server.mjs')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout!.once('data', (d: Buffer) => resolve(d.toString().trim()))
        child.once('exit', () => reject(new Error('http server exited')))
      })
      const repo = temps.repo()
      const dataDir = temps.dir('stepwise-mcp-data-')
      const dir = temps.dir('stepwise-mcp-conf-')
      const config = writeConfig(dir, {
        web: { url, headers: { 'x-test-token': 'let-me-in' } },
        locked: { type: 'http', url },
      })
      const s = await mcpSession(
        CLI,
        { repo, dataDir },
        [call('h', 'mcp__web__shout', { text: 'over http' }), { text: 'ok' }],
        ['--approve', 'full-auto', '--mcp-config', config],
      )
      expect(s.code, s.stderr).toBe(0)
      expect(ofType(s.events, 'tool.finished')[0]).toMatchObject({ ok: true, result: { text: 'OVER HTTP' } })
      // Without the header it answers 401: needs sign-in, with the command that does it.
      expect(s.stderr).toContain(
        `MCP server "locked" needs sign-in (URL: ${url}): it answered 401 Unauthorized. Sign in with \`stepwise mcp login locked\``,
      )
    } finally {
      child.kill()
    }
  }, 60_000)
})
