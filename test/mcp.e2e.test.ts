/**
 * MCP tools through the real `stepwise edit` CLI against the official reference servers
 * (@modelcontextprotocol/server-everything and server-memory), with the fake model
 * scripting the calls: text, image and structured results, progress and cancellation,
 * the approval policies, and the environment a server sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli } from './cli-harness'
import {
  everything,
  mcpSession,
  MEMORY,
  ofType,
  Temps,
  toolMessage,
  toolNames,
  waitFor,
  writeConfig,
} from './mcp-support'
import { openStore } from '../src/main/store/store'

let CLI = ''
const temps = new Temps()

beforeAll(() => {
  CLI = buildCli('stepwise-mcp-e2e')
}, 180_000)
afterAll(() => temps.cleanup())

function setup(servers: Record<string, unknown> = { everything }) {
  const repo = temps.repo()
  const dataDir = temps.dir('stepwise-mcp-data-')
  const config = writeConfig(temps.dir('stepwise-mcp-conf-'), servers)
  return { repo, dataDir, config }
}

const call = (id: string, name: string, args: object = {}) => ({ toolCalls: [{ id, name, arguments: args }] })

describe('MCP tools from the reference servers', () => {
  it('lists the servers’ tools with their schemas in the first request and returns text and structured results', async () => {
    const memoryFile = `${temps.dir('stepwise-mcp-memory-')}/memory.jsonl`
    const { repo, dataDir, config } = setup({
      everything,
      memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile } },
    })
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [
        call('c1', 'mcp__everything__echo', { message: 'hello MCP' }),
        call('c2', 'mcp__everything__get-sum', { a: 2, b: 40 }),
        call('c3', 'mcp__everything__get-structured-content', { location: 'New York' }),
        call('c4', 'mcp__memory__create_entities', {
          entities: [{ name: 'Stepwise', entityType: 'app', observations: ['speaks MCP'] }],
        }),
        call('c5', 'mcp__memory__read_graph'),
        { text: 'done' },
      ],
      ['--approve', 'full-auto', '--mcp-config', config],
    )
    expect(s.code, s.stderr).toBe(0)
    const first = s.requests[0]
    expect(toolNames(first)).toEqual(
      expect.arrayContaining(['read_file', 'mcp__everything__echo', 'mcp__memory__read_graph']),
    )
    const echo = (
      first.tools as { function: { name: string; description: string; parameters: object } }[]
    ).find((t) => t.function.name === 'mcp__everything__echo')!
    expect(echo.function.description).toBe('[MCP server "everything"] Echoes back the input string')
    expect(echo.function.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    })
    const finished = ofType(s.events, 'tool.finished')
    expect(finished.map((e) => [e.name, e.ok])).toEqual([
      ['mcp__everything__echo', true],
      ['mcp__everything__get-sum', true],
      ['mcp__everything__get-structured-content', true],
      ['mcp__memory__create_entities', true],
      ['mcp__memory__read_graph', true],
    ])
    expect(finished[0].result).toEqual({ ok: true, text: 'Echo: hello MCP' })
    expect(JSON.parse(toolMessage(s.requests, 'c1')!)).toEqual({ ok: true, text: 'Echo: hello MCP' })
    expect(String((finished[1].result as { text: string }).text)).toContain('42')
    expect(finished[2].result).toMatchObject({ ok: true, structured: { temperature: expect.any(Number) } })
    expect(String((finished[4].result as { text: string }).text)).toContain('speaks MCP')
    // A server's tool may change the project unless it says it only reads (readOnlyHint): a
    // checkpoint follows create_entities alone, none of the four tools marked read-only.
    expect(ofType(s.events, 'checkpoint.created').map((e) => e.callId)).toEqual(['c4'])
  }, 60_000)

  it('keeps an image for the app and describes it to the model', async () => {
    const { repo, dataDir, config } = setup()
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [call('img', 'mcp__everything__get-tiny-image'), { text: 'saw it' }],
      ['--approve', 'full-auto', '--mcp-config', config],
    )
    expect(s.code, s.stderr).toBe(0)
    const finished = ofType(s.events, 'tool.finished')[0]
    const attachments = finished.attachments as { kind: string; mimeType: string; data: string }[]
    expect(attachments).toHaveLength(1)
    expect(attachments[0]).toMatchObject({ kind: 'image', mimeType: 'image/png' })
    expect(Buffer.from(attachments[0].data, 'base64').subarray(1, 4).toString()).toBe('PNG')
    const sent = toolMessage(s.requests, 'img')!
    expect(sent).toContain('you cannot see it')
    expect(sent).not.toContain(attachments[0].data.slice(0, 40))
    // Stored like any other tool: the session's export holds the call and its image.
    const exported = await import('./cli-harness').then((h) =>
      h.runCli(CLI, ['sessions', 'export', String(finished.sessionId), '--data-dir', dataDir]),
    )
    expect(exported.stdout).toContain('"mcp__everything__get-tiny-image"')
    expect(exported.stdout).toContain(attachments[0].data.slice(0, 40))
  }, 60_000)

  it('shows a long call’s progress on the timeline and cancels it on Ctrl+C', async () => {
    const { repo, dataDir, config } = setup()
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [
        call('short', 'mcp__everything__trigger-long-running-operation', { duration: 1, steps: 4 }),
        call('long', 'mcp__everything__trigger-long-running-operation', { duration: 60, steps: 60 }),
        { text: 'never asked' },
      ],
      ['--approve', 'full-auto', '--mcp-config', config],
      {
        // Interrupt once the long call has reported progress twice (the server sends one a second).
        whileRunning: async (server, pid) => {
          await waitFor(() => server.requests.length >= 2)
          await new Promise((r) => setTimeout(r, 2500))
          process.kill(pid, 'SIGINT')
        },
      },
    )
    expect(s.code).toBe(130)
    const outputs = ofType(s.events, 'tool.output')
    const short = outputs.filter((e) => e.callId === 'short').map((e) => e.text)
    // The SDK drops a notification that lands with the result (its handlers run a tick later).
    expect(short.slice(0, 3)).toEqual(['[progress 1/4]\n', '[progress 2/4]\n', '[progress 3/4]\n'])
    expect(outputs.filter((e) => e.callId === 'long').length).toBeGreaterThanOrEqual(1)
    const long = ofType(s.events, 'tool.finished').find((e) => e.callId === 'long')!
    expect(long).toMatchObject({ ok: false })
    expect(String((long.result as { error: string }).error)).toContain('Cancelled')
    expect(Number(long.durationMs)).toBeLessThan(30_000)
    expect(s.events.at(-2)).toMatchObject({ type: 'session.finished', reason: 'interrupted' })
    expect(s.events.at(-1)).toMatchObject({ type: 'turn.finished', reason: 'interrupted' })
  }, 90_000)

  it('never hands the server the user’s API keys', async () => {
    const { repo, dataDir, config } = setup({
      everything: { ...everything, env: { GREETING: 'from-config' } },
    })
    const secrets = {
      OPENAI_API_KEY: 'sk-test-abcdefghijklmnopqrstuvwxyz123456',
      ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdef0123',
      LITELLM_MASTER_KEY: 'master-key-value-0001',
      GITHUB_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    }
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [call('env', 'mcp__everything__get-env'), { text: 'ok' }],
      ['--approve', 'full-auto', '--mcp-config', config],
      { env: secrets },
    )
    expect(s.code, s.stderr).toBe(0)
    const text = String((ofType(s.events, 'tool.finished')[0].result as { text: string }).text)
    const env = JSON.parse(text) as Record<string, string>
    expect(env.GREETING).toBe('from-config')
    expect(env.PATH).toBeTruthy()
    for (const [name, value] of Object.entries(secrets)) {
      expect(env[name]).toBeUndefined()
      expect(text).not.toContain(value)
    }
  }, 60_000)
})

describe('MCP tools under the approval policies', () => {
  it('ask asks showing server, tool and arguments (refused without a terminal)', async () => {
    const { repo, dataDir, config } = setup()
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [call('a1', 'mcp__everything__echo', { message: 'may I?' }), { text: 'ok' }],
      ['--approve', 'ask', '--mcp-config', config],
    )
    expect(s.code, s.stderr).toBe(0)
    expect(ofType(s.events, 'approval.requested')).toEqual([
      expect.objectContaining({
        callId: 'a1',
        tool: 'mcp__everything__echo',
        subject: {
          kind: 'mcp',
          server: 'everything',
          tool: 'echo',
          args: { message: 'may I?' },
          description: 'Echoes back the input string',
          // The server marks echo read-only (readOnlyHint); under ask it asks all the same.
          readOnly: true,
          hints: { destructive: false, idempotent: true, openWorld: false },
        },
        rule: { kind: 'mcp', server: 'everything', tool: 'echo' },
      }),
    ])
    expect(ofType(s.events, 'approval.resolved')[0]).toMatchObject({ decision: 'reject', by: 'user' })
    expect(ofType(s.events, 'tool.finished')[0]).toMatchObject({ ok: false })
  }, 60_000)

  it('auto-edit runs only the tools the user allowed, and asks for the rest', async () => {
    const { repo, dataDir, config } = setup()
    const store = openStore(dataDir)
    store.setSetting('mcp', JSON.stringify({ allowedTools: ['everything/get-sum'] }))
    store.close()
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [
        call('sum', 'mcp__everything__get-sum', { a: 1, b: 2 }),
        call('echo', 'mcp__everything__echo', { message: 'not allowed' }),
        { text: 'ok' },
      ],
      ['--approve', 'auto-edit', '--mcp-config', config],
    )
    expect(s.code, s.stderr).toBe(0)
    expect(ofType(s.events, 'approval.requested').map((e) => e.callId)).toEqual(['echo'])
    const finished = ofType(s.events, 'tool.finished')
    expect(finished.map((e) => [e.callId, e.ok])).toEqual([
      ['sum', true],
      ['echo', false],
    ])
  }, 60_000)

  it('read-only offers only the tools a server marks read-only', async () => {
    const { repo, dataDir, config } = setup()
    const store = openStore(dataDir)
    store.setSetting('mcp', JSON.stringify({ allowedServers: ['everything'] }))
    store.close()
    const s = await mcpSession(
      CLI,
      { repo, dataDir },
      [
        call('ro', 'mcp__everything__echo', { message: 'reading' }),
        call('rw', 'mcp__everything__toggle-simulated-logging'),
        { text: 'ok' },
      ],
      ['--approve', 'read-only', '--mcp-config', config],
    )
    expect(s.code, s.stderr).toBe(0)
    const names = toolNames(s.requests[0])
    expect(names).toContain('mcp__everything__echo')
    expect(names).toContain('mcp__everything__get-env')
    expect(names).not.toContain('mcp__everything__toggle-simulated-logging')
    expect(names).not.toContain('mcp__everything__gzip-file-as-resource')
    expect(names).not.toContain('write_file')
    const finished = ofType(s.events, 'tool.finished')
    expect(finished.map((e) => [e.callId, e.ok])).toEqual([
      ['ro', true],
      ['rw', false],
    ])
  }, 60_000)
})
