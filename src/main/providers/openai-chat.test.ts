import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import {
  startFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from '../../../test/fake-model-server'
import { runTurn, TEST_TOOLS, userRequest } from '../../../test/provider-harness'
import { createProvider } from './index'
import { withRetry } from './retry'
import { ProviderError, type ModelRequest } from './types'

type ErrorBody = { error: { message: string } }
let server: FakeModelServer | undefined
afterEach(() => server?.close())

async function setup(opts: FakeModelServerOptions) {
  server = await startFakeModelServer(opts)
  return {
    server,
    provider: createProvider({ provider: 'openai-chat', model: 'local-model', baseUrl: server.v1Url }),
  }
}

const chunk = (delta: unknown, finish: string | null = null) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })
const noUsage = { inputTokens: 0, outputTokens: 0 }

describe('openai-chat (Chat Completions)', () => {
  it('streams a scripted turn; request has stream_options, nested tools and the system message', async () => {
    const { server, provider } = await setup({
      turns: [
        {
          text: 'On it.',
          toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }],
          usage: { inputTokens: 30, outputTokens: 7 },
        },
      ],
    })
    const out = await runTurn(provider, userRequest())
    expect(out.turn).toEqual({
      text: 'On it.',
      toolCalls: [{ id: 'call_fake_0_0', name: 'list_dir', arguments: '{"path":"."}' }],
      usage: { inputTokens: 30, outputTokens: 7 },
      finishReason: 'tool_calls',
    })
    expect(out.deltas.join('')).toBe('On it.')
    expect(server.requests[0].path).toBe('/v1/chat/completions')
    expect(server.requests[0].headers.authorization).toBeUndefined()
    expect(server.requests[0].body).toEqual({
      model: 'local-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Open src/main.ts' },
      ],
      tools: TEST_TOOLS.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
    })
  })

  it('sends tool results as role:"tool" answering each call, which the fake server checks', async () => {
    const { server, provider } = await setup({ turns: [{ text: 'Done.' }, { text: 'unreachable' }] })
    const request: ModelRequest = {
      system: 'S',
      tools: TEST_TOOLS,
      transcript: [
        { role: 'user', text: 'go' },
        {
          role: 'assistant',
          text: '',
          toolCalls: [
            { id: 'a', name: 'read_file', arguments: '{"path":"x"}' },
            { id: 'b', name: 'list_dir', arguments: '{}' },
          ],
        },
        { role: 'tool', callId: 'a', name: 'read_file', output: 'A' },
        { role: 'tool', callId: 'zzz', name: 'read_file', output: 'orphan, dropped' },
      ],
    }
    expect((await runTurn(provider, request)).turn?.text).toBe('Done.')
    expect(server.requests[0].body.messages.slice(1)).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } },
          { id: 'b', type: 'function', function: { name: 'list_dir', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: '{"ok":false,"error":"This tool call was not run."}' },
    ])
    // The server really does reject an orphan output and an unanswered call.
    const post = (messages: unknown[]) =>
      fetch(`${server.v1Url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages }),
      }).then(async (r) => [r.status, ((await r.json()) as ErrorBody).error.message])
    const call = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
    }
    expect(
      await post([
        { role: 'user', content: 'x' },
        { role: 'tool', tool_call_id: 'X', content: '' },
      ]),
    ).toEqual([
      400,
      "Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'. No tool call found for function call output with call_id X.",
    ])
    expect((await post([call, { role: 'user', content: 'x' }]))[1]).toContain(
      'did not have response messages: a',
    )
    expect(server.turnsUsed).toBe(1)
  })

  it('framing: comments, CRLF, data: without a space, empty data:, no [DONE], events after [DONE]', async () => {
    const { provider } = await setup({
      turns: [
        {
          raw: `: OPENROUTER PROCESSING\r\n\r\ndata:${chunk({ content: 'Hi' })}\r\n\r\ndata: \r\n\r\ndata: ${chunk({ content: ' there' })}\r\n\r\n`,
        },
        {
          raw: `data: ${chunk({ content: 'A' })}\n\ndata: ${chunk({}, 'stop')}\n\ndata: [DONE]\n\ndata: ${chunk({ content: 'IGNORED' })}\n\n`,
        },
      ],
      chunkBytes: [1, 3],
    })
    expect((await runTurn(provider, userRequest())).turn).toEqual({
      text: 'Hi there',
      toolCalls: [],
      usage: noUsage,
    })
    expect((await runTurn(provider, userRequest())).turn).toEqual({
      text: 'A',
      toolCalls: [],
      usage: noUsage,
      finishReason: 'stop',
    })
  })

  it('tool calls are decided from the calls, not finish_reason', async () => {
    const call = {
      tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'read_file', arguments: '{}' } }],
    }
    const { provider } = await setup({
      turns: [
        { raw: `data: ${chunk(call)}\n\ndata: ${chunk({}, 'stop')}\n\n` },
        { raw: `data: ${chunk({ content: 'no call' })}\n\ndata: ${chunk({}, 'tool_calls')}\n\n` },
      ],
    })
    expect((await runTurn(provider, userRequest())).turn?.toolCalls).toEqual([
      { id: 'c', name: 'read_file', arguments: '{}' },
    ])
    expect((await runTurn(provider, userRequest())).turn).toEqual({
      text: 'no call',
      toolCalls: [],
      usage: noUsage,
      finishReason: 'tool_calls',
    })
  })

  it('a turn with zero deltas and no finish is an error, not an empty answer (LM Studio #2339)', async () => {
    const { provider } = await setup({
      turns: [{ raw: `data: ${chunk({ role: 'assistant' })}\n\ndata: [DONE]\n\n` }],
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-response' })
  })

  it('bad responses: an HTML page (200 and 404), garbage, an empty body', async () => {
    const html = '<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>'
    const { provider } = await setup({
      turns: [
        { raw: html, contentType: 'text/html' },
        { status: 404, body: html },
        { raw: 'hello, I am not SSE\n' },
        { raw: 'data: {not json}\n\n' },
        { raw: '' },
      ],
    })
    const first = (await runTurn(provider, userRequest())).error
    expect(first).toMatchObject({ kind: 'bad-response' })
    expect((first as Error).message).toContain('Welcome to nginx!')
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'not-found', status: 404 })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-response' })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-response' })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-response' })
  })

  it('network: connection refused, and a connection closed mid-stream', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const refused = createProvider({
      provider: 'openai-chat',
      model: 'm',
      baseUrl: `http://127.0.0.1:${port}/v1`,
    })
    const out = await runTurn(refused, userRequest())
    expect(out.error).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' })
    expect((out.error as Error).message).toContain('connection refused')

    const { provider } = await setup({ turns: [{ closeMidStream: true }] })
    const cut = await runTurn(provider, userRequest())
    expect(cut.error).toMatchObject({ kind: 'network' })
    expect(cut.deltas.join('')).toBe('Hell')
    expect(cut.traffic.at(-1)?.body).toContain('"content":"Hell"')
  })

  it('abort: a hanging stream ends with the abort reason, not a ProviderError', async () => {
    const { provider } = await setup({ turns: [{ hang: true }] })
    const ac = new AbortController()
    const pending = runTurn(provider, userRequest(), ac.signal)
    while (server!.requests.length === 0) await new Promise((r) => setImmediate(r))
    ac.abort()
    const out = await pending
    expect(out.error).not.toBeInstanceOf(ProviderError)
    expect((out.error as Error).name).toBe('AbortError')
  })

  it('HTTP errors map to kinds', async () => {
    const err = (message: string, type: string, code: string | null) =>
      JSON.stringify({ error: { message, type, param: null, code } })
    const { provider } = await setup({
      turns: [
        {
          status: 401,
          body: err('Incorrect API key provided: sk-abc***1234.', 'invalid_request_error', 'invalid_api_key'),
        },
        {
          status: 400,
          body: JSON.stringify({
            error: {
              code: 400,
              message:
                'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it',
              type: 'exceed_context_size_error',
              n_prompt_tokens: 4390,
              n_ctx: 4096,
            },
          }),
        },
        { status: 422, body: err('Unprocessable', 'invalid_request_error', null) },
      ],
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({
      kind: 'auth',
      status: 401,
      code: 'invalid_api_key',
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({
      kind: 'context-overflow',
      status: 400,
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-request', status: 422 })
  })
})

describe('retry policy over HTTP (injected sleep)', () => {
  const rateLimit = JSON.stringify({
    error: {
      message: 'Rate limit reached for gpt-4o on tokens per min (TPM).',
      type: 'tokens',
      param: null,
      code: 'rate_limit_exceeded',
    },
  })
  const quota = JSON.stringify({
    error: {
      message: 'You exceeded your current quota, please check your plan and billing details.',
      type: 'insufficient_quota',
      param: null,
      code: 'insufficient_quota',
    },
  })

  async function retried(turns: FakeModelServerOptions['turns']) {
    const { server, provider } = await setup({ turns })
    const sleeps: number[] = []
    const run = withRetry(
      async () => {
        const out = await runTurn(provider, userRequest())
        if (out.error) throw out.error
        return out.turn
      },
      { sleep: async (ms) => void sleeps.push(ms), random: () => 0 },
    )
    const result = await run.then(
      (turn) => ({ turn }),
      (error: unknown) => ({ error }),
    )
    return { ...result, sleeps, requests: server.requests.length }
  }

  it('429 with retry-after is honoured, then the turn succeeds', async () => {
    const r = await retried([
      { status: 429, body: rateLimit, headers: { 'retry-after': '2' } },
      { text: 'ok' },
    ])
    expect(r).toMatchObject({ turn: { text: 'ok' }, sleeps: [2000], requests: 2 })
  })

  it('500 then success backs off', async () => {
    const r = await retried([
      { status: 500, body: '{"error":{"message":"boom","type":"server_error"}}' },
      { text: 'ok' },
    ])
    expect(r).toMatchObject({ turn: { text: 'ok' }, sleeps: [250], requests: 2 })
  })

  it('401 and insufficient_quota are not retried', async () => {
    const a = await retried([
      {
        status: 401,
        body: '{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}',
      },
      { text: 'no' },
    ])
    expect(a).toMatchObject({ error: { kind: 'auth' }, sleeps: [], requests: 1 })
    await server?.close()
    const q = await retried([{ status: 429, body: quota, headers: { 'retry-after': '1' } }, { text: 'no' }])
    expect(q).toMatchObject({ error: { kind: 'quota' }, sleeps: [], requests: 1 })
  })
})
