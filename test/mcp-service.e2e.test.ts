/**
 * MCP through the app's core service, driven by its protocol commands as the app drives it:
 * the open project's servers and their status notices, a chat turn calling an MCP tool the
 * user allowed, a project `.mcp.json` approved by the hash it was shown, and the stderr log.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { HostMessage, McpListOutput, StepwiseEvent } from '../src/shared/protocol'
import { openStore } from '../src/main/store/store'
import { startFakeModelServer } from './fake-model-server'
import { everything, Temps, waitFor, writeConfig } from './mcp-support'
import { answer, runTurn, startService } from './service-harness'

const temps = new Temps()
afterAll(() => temps.cleanup())

describe('MCP in the app', () => {
  it('lists the open project’s servers, runs an allowed tool in a chat, approves .mcp.json by hash', async () => {
    const repo = temps.repo({
      'a.txt': 'one\n',
      '.mcp.json': JSON.stringify({ mcpServers: { proj: everything } }),
    })
    const dataDir = temps.dir('stepwise-mcp-app-')
    writeConfig(dataDir, { everything })
    const store = openStore(dataDir)
    const model = await startFakeModelServer({
      turns: [
        { toolCalls: [{ id: 'm1', name: 'mcp__everything__echo', arguments: { message: 'from the app' } }] },
        { text: 'done' },
      ],
    })
    const service = startService({ store, dataDir, baseUrl: model.url })
    const messages: HostMessage[] = []
    service.subscribe((m) => messages.push(m))
    try {
      await answer(service, 'project/open', { repo })
      await waitFor(() =>
        messages.some(
          (m) => m.type === 'host.mcp-status' && m.server === 'everything' && m.state === 'ready',
        ),
      )
      let list = await answer<McpListOutput>(service, 'mcp/list', {})
      expect(list.servers.map((s) => [s.name, s.source, s.state])).toEqual([
        ['everything', 'user', 'ready'],
        ['proj', 'project', 'awaiting-approval'],
      ])
      expect(list.project).toMatchObject({
        path: path.join(repo, '.mcp.json'),
        state: 'pending',
        servers: ['proj'],
      })

      list = await answer<McpListOutput>(service, 'mcp/setAllowed', {
        server: 'everything',
        tool: 'echo',
        allowed: true,
      })
      expect(list.servers[0].tools.find((t) => t.name === 'echo')).toMatchObject({ allowed: true })
      const { sessionId } = await answer<{ sessionId: string }>(service, 'session/create', { repo })
      await runTurn(service, sessionId, 'Echo something')
      const { events } = await answer<{ events: StepwiseEvent[] }>(service, 'session/events', { sessionId })
      const finished = events.find((e) => e.type === 'tool.finished')
      expect(finished).toMatchObject({
        name: 'mcp__everything__echo',
        ok: true,
        result: { ok: true, text: 'Echo: from the app' },
      })
      expect(events.some((e) => e.type === 'approval.requested')).toBe(false)

      const stale = 'f'.repeat(64)
      const refused = await service.answer('mcp/approveProject', { hash: stale, approve: true })
      expect(refused).toMatchObject({
        ok: false,
        error: expect.stringContaining('changed since it was shown'),
      })
      list = await answer<McpListOutput>(service, 'mcp/approveProject', {
        hash: list.project!.hash,
        approve: true,
      })
      expect(list.project!.state).toBe('approved')
      expect(list.servers.find((s) => s.name === 'proj')!.state).toBe('ready')

      const log = await answer<{ text: string }>(service, 'mcp/log', { server: 'proj' })
      expect(log.text).toContain('starting:')
      expect((await service.answer('mcp/restart', { server: 'nope' })).ok).toBe(false)
    } finally {
      await service.close()
      await model.close()
      store.close()
    }
    expect(fs.existsSync(path.join(dataDir, 'mcp-logs', 'everything.log'))).toBe(true)
  }, 60_000)
})
