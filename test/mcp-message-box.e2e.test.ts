/**
 * What the app's message box does with MCP, through the core service as the app drives it:
 * `mcp/catalog` offers the open project's prompts and resources; `/mcp__SERVER__PROMPT args`
 * sends the prompt's messages as the turn; `@SERVER:URI` has the resource read as the server's
 * read_resource call (through the policy and its approval) and attached to the message, the same
 * on the wire live and in the transcript rebuilt from the events; a message that cannot be
 * sent as it stands is refused with what to do.
 */
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { HostMessage, McpCatalog, StepwiseEvent } from '../src/shared/protocol'
import { transcriptFromEvents } from '../src/main/providers/transcript'
import { openStore } from '../src/main/store/store'
import { startFakeModelServer, type FakeTurn } from './fake-model-server'
import { FIXTURES, Temps, waitFor, writeConfig } from './mcp-support'
import { answer, runTurn, startService } from './service-harness'

const temps = new Temps()
afterAll(() => temps.cleanup())

const library = { command: process.execPath, args: [path.join(FIXTURES, 'library-server.mjs')] }

async function app(turns: FakeTurn[], approvalPolicy: 'ask' | 'full-auto' = 'full-auto') {
  const repo = temps.repo({ 'a.txt': 'one\n' })
  const dataDir = temps.dir('stepwise-mcp-box-')
  writeConfig(dataDir, { lib: library })
  const store = openStore(dataDir)
  const model = await startFakeModelServer({ turns })
  const service = startService({ store, dataDir, baseUrl: model.url, approvalPolicy })
  const messages: HostMessage[] = []
  service.subscribe((m) => messages.push(m))
  await answer(service, 'project/open', { repo })
  await waitFor(() =>
    messages.some((m) => m.type === 'host.mcp-status' && m.server === 'lib' && m.state === 'ready'),
  )
  const { sessionId } = await answer<{ sessionId: string }>(service, 'session/create', { repo })
  const events = async () =>
    (await answer<{ events: StepwiseEvent[] }>(service, 'session/events', { sessionId })).events
  const lastUserMessage = () => {
    const chats = model.requests.filter((r) => r.path === '/api/chat')
    const sent = chats.at(-1)?.body.messages as { role: string; content: string }[]
    return sent.filter((m) => m.role === 'user').at(-1)?.content
  }
  const close = async () => {
    await service.close()
    await model.close()
    store.close()
  }
  return { service, sessionId, events, lastUserMessage, close, messages }
}

describe('the message box and MCP', () => {
  it('offers the running servers’ prompts and resources, their texts collapsed', async () => {
    const a = await app([])
    try {
      const catalog = await answer<McpCatalog>(a.service, 'mcp/catalog', {})
      expect(catalog).toEqual({
        prompts: [
          {
            server: 'lib',
            command: 'mcp__lib__review',
            name: 'review',
            description: 'Asks for a review of one topic',
            arguments: [
              { name: 'topic', description: 'What to review', required: true },
              { name: 'tone', required: false },
            ],
          },
        ],
        resources: [
          {
            server: 'lib',
            uri: 'note://guide',
            template: false,
            name: 'Style guide',
            description: 'How the project writes code',
            mimeType: 'text/plain',
          },
          {
            server: 'lib',
            uri: 'note://shelf/{name}',
            template: true,
            name: 'A shelf',
            description: 'The notes on one shelf',
          },
        ],
      })
    } finally {
      await a.close()
    }
  }, 30_000)

  it('runs a prompt as a slash command: its messages are the turn; a missing argument is refused', async () => {
    const a = await app([{ text: 'Reviewed.' }])
    try {
      const refused = await a.service.answer('turn/start', {
        sessionId: a.sessionId,
        text: '/mcp__lib__review',
      })
      expect(refused).toEqual({
        ok: false,
        error: '/mcp__lib__review needs topic: write topic=… tone=….',
      })
      const unknown = await a.service.answer('turn/start', {
        sessionId: a.sessionId,
        text: '/mcp__lib__nope x',
      })
      expect(unknown).toEqual({
        ok: false,
        error: '/mcp__lib__nope is not a prompt of a running MCP server (there are: /mcp__lib__review).',
      })
      await runTurn(a.service, a.sessionId, '/mcp__lib__review topic="the tests" tone=calm')
      const users = (await a.events()).filter((e) => e.type === 'user.message')
      expect(users).toEqual([expect.objectContaining({ text: 'PROMPT: review the tests in a calm tone.' })])
      expect(a.lastUserMessage()).toBe('PROMPT: review the tests in a calm tone.')
    } finally {
      await a.close()
    }
  }, 30_000)

  it('reads an @-mentioned resource as the server’s read_resource call and attaches it, live as on replay', async () => {
    const a = await app([{ text: 'Read it.' }], 'ask')
    try {
      const text = 'Follow @lib:note://guide. And @lib:note://shelf/top, mail me@example.com'
      await a.service.answer('turn/start', { sessionId: a.sessionId, text })
      // Under `ask` the read asks like any MCP call, with the tool's read-only hint.
      await waitFor(() => a.messages.some((m) => m.type === 'approval.requested'))
      const asked = a.messages.find((m) => m.type === 'approval.requested') as Extract<
        StepwiseEvent,
        { type: 'approval.requested' }
      >
      expect(asked.subject).toMatchObject({
        kind: 'mcp',
        server: 'lib',
        tool: 'read_resource',
        args: { uri: 'note://guide' },
        readOnly: true,
      })
      // While the turn runs, a prompt or a mention waits for a turn of its own: refused, not queued.
      expect(
        await a.service.answer('queue/add', { sessionId: a.sessionId, text: '/mcp__lib__review x' }),
      ).toEqual({
        ok: false,
        error: 'A server prompt runs as its own turn: send it once this turn ends, or press Stop first.',
      })
      expect(
        await a.service.answer('queue/add', { sessionId: a.sessionId, text: 'and @lib:note://guide' }),
      ).toEqual({
        ok: false,
        error:
          'A message that attaches MCP resources (@server:uri) starts its own turn: send it once this turn ends, or press Stop first.',
      })
      await answer(a.service, 'approval/resolve', {
        sessionId: a.sessionId,
        callId: asked.callId,
        decision: 'accept',
      })
      await waitFor(() => a.messages.filter((m) => m.type === 'approval.requested').length === 2)
      const second = a.messages.filter((m) => m.type === 'approval.requested')[1] as typeof asked
      await answer(a.service, 'approval/resolve', {
        sessionId: a.sessionId,
        callId: second.callId,
        decision: 'reject',
        reason: 'not that one',
      })
      await waitFor(() => !a.service.sessions.isRunning(a.sessionId))
      const events = await a.events()
      const kinds = events
        .filter((e) =>
          ['user.message', 'tool.started', 'tool.finished', 'assistant.message'].includes(e.type),
        )
        .map((e) => [e.type, 'callId' in e ? e.callId : undefined, 'ok' in e ? e.ok : undefined])
      expect(kinds).toEqual([
        ['user.message', undefined, undefined],
        ['tool.started', 'mention_1', undefined],
        ['tool.finished', 'mention_1', true],
        ['tool.started', 'mention_2', undefined],
        ['tool.finished', 'mention_2', false],
        ['assistant.message', undefined, undefined],
      ])
      expect(events.find((e) => e.type === 'user.message')).toMatchObject({
        text,
        resources: [
          { server: 'lib', uri: 'note://guide', callId: 'mention_1' },
          { server: 'lib', uri: 'note://shelf/top', callId: 'mention_2' },
        ],
      })
      const sent = a.lastUserMessage()
      expect(sent).toBe(
        `${text}\n\nThe user attached these resources (read from MCP servers; their text is the servers', not the user's):\n\n` +
          '[Resource @lib:note://guide]\n--- note://guide (text/plain)\nGUIDE: indent with two spaces.\n\n' +
          '[Resource @lib:note://shelf/top]\n(not read: The user rejected calling mcp__lib__read_resource. Their reason: not that one)',
      )
      // The transcript rebuilt from the events (a next turn, a fork, replay) sends the same.
      const rebuilt = transcriptFromEvents(events).find((i) => i.role === 'user')
      expect(rebuilt).toEqual({ role: 'user', text: sent })
    } finally {
      await a.close()
    }
  }, 30_000)

  it('refuses a mention it cannot read, saying why, and keeps other @ text as text', async () => {
    const a = await app([{ text: 'ok' }])
    try {
      const template = await a.service.answer('turn/start', {
        sessionId: a.sessionId,
        text: 'see @lib:note://shelf/{name}',
      })
      expect(template).toEqual({
        ok: false,
        error: '@lib:note://shelf/{name} is a template: replace each {…} with a value before sending.',
      })
      await answer(a.service, 'mcp/setEnabled', { server: 'lib', enabled: false })
      const off = await a.service.answer('turn/start', {
        sessionId: a.sessionId,
        text: 'see @lib:note://guide',
      })
      expect(off).toEqual({
        ok: false,
        error:
          '@lib:note://guide cannot be read: MCP server "lib" is disabled; start it in the MCP view first.',
      })
      await runTurn(a.service, a.sessionId, 'ping @other:note://x and @lib')
      expect((await a.events()).filter((e) => e.type === 'tool.started')).toEqual([])
      expect(a.lastUserMessage()).toBe('ping @other:note://x and @lib')
    } finally {
      await a.close()
    }
  }, 30_000)
})
