import { afterEach, describe, expect, it } from 'vitest'
import {
  startFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from '../../../test/fake-model-server'
import { runTurn, TEST_TOOLS, userRequest } from '../../../test/provider-harness'
import { createProvider } from './index'
import { OllamaProvider } from './ollama'
import { textToolPrompt } from './text-fallback'
import type { ModelRequest } from './types'

let server: FakeModelServer | undefined
afterEach(() => server?.close())

async function setup(opts: FakeModelServerOptions, numCtx?: number) {
  server = await startFakeModelServer(opts)
  return {
    server,
    provider: createProvider({
      provider: 'ollama',
      model: 'qwen2.5-coder:7b',
      baseUrl: server.url,
      numCtx,
    }) as OllamaProvider,
  }
}

const chatRequests = () => server!.requests.filter((r) => r.path === '/api/chat')
const ID = expect.stringMatching(/^call_[a-z0-9]{24}$/)
const line = (fields: Record<string, unknown>) =>
  `${JSON.stringify({ model: 'm', created_at: 't', ...fields })}\n`

const afterCalls: ModelRequest = {
  system: 'S',
  tools: TEST_TOOLS,
  transcript: [
    { role: 'user', text: 'go' },
    {
      role: 'assistant',
      text: 'Reading.',
      toolCalls: [
        { id: 'a', name: 'read_file', arguments: '{"path":"x"}' },
        { id: 'b', name: 'list_dir', arguments: '{}' },
      ],
    },
    { role: 'tool', callId: 'a', name: 'read_file', output: 'A' },
    { role: 'tool', callId: 'b', name: 'list_dir', output: 'B' },
  ],
}

describe('ollama (native /api/chat)', () => {
  it('streams a scripted turn; request has nested tools, stream:true and num_ctx from /api/show', async () => {
    const { server, provider } = await setup({
      turns: [
        {
          text: 'Let me look.',
          toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }],
          usage: { inputTokens: 169, outputTokens: 15 },
        },
      ],
    })
    const out = await runTurn(provider, userRequest())
    expect(out.turn).toEqual({
      text: 'Let me look.',
      toolCalls: [{ id: 'call_fake_0_0', name: 'read_file', arguments: '{"path":"a"}' }],
      usage: { inputTokens: 169, outputTokens: 15 },
      finishReason: 'stop',
    })
    expect(server.requests.map((r) => r.path)).toEqual(['/api/show', '/api/chat'])
    expect(server.requests[1].body).toEqual({
      model: 'qwen2.5-coder:7b',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Open src/main.ts' },
      ],
      stream: true,
      options: { num_ctx: 32768, num_predict: 32768 },
      tools: TEST_TOOLS.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
    })
    // /api/show is asked once per provider.
    await runTurn(provider, userRequest()).catch(() => undefined)
    expect(server.requests.filter((r) => r.path === '/api/show')).toHaveLength(1)
  })

  it('num_ctx: the architecture-specific key capped at 32768, config wins, 8192 when /api/show fails', async () => {
    let r = await setup({ show: { architecture: 'llama', contextLength: 131072 }, turns: [{ text: 'x' }] })
    expect(await r.provider.describe()).toEqual({
      contextLength: 131072,
      capabilities: ['completion', 'tools'],
    })
    await runTurn(r.provider, userRequest())
    expect(chatRequests()[0].body.options).toEqual({ num_ctx: 32768, num_predict: 32768 })
    await server!.close()

    r = await setup({ show: { architecture: 'gemma3', contextLength: 8192 }, turns: [{ text: 'x' }] }, 16384)
    await runTurn(r.provider, userRequest())
    expect(chatRequests()[0].body.options).toEqual({ num_ctx: 16384, num_predict: 32768 })
    await server!.close()

    r = await setup({
      show: { architecture: 'qwen2', contextLength: 4096 },
      models: ['other'],
      turns: [{ text: 'x' }],
    })
    expect((await runTurn(r.provider, userRequest())).error).toMatchObject({ kind: 'not-found', status: 404 })
    expect(chatRequests()[0].body.options).toEqual({ num_ctx: 8192, num_predict: 32768 })
  })

  it('sends tool calls with object arguments and results as role:"tool"; lists models', async () => {
    const { server, provider } = await setup({
      turns: [{ text: 'ok' }],
      models: ['qwen2.5-coder:7b', 'llama3.2:latest'],
    })
    expect((await runTurn(provider, afterCalls)).turn?.text).toBe('ok')
    expect(chatRequests()[0].body.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'a', function: { name: 'read_file', arguments: { path: 'x' } } },
          { id: 'b', function: { name: 'list_dir', arguments: {} } },
        ],
      },
      { role: 'tool', content: 'A', tool_name: 'read_file', tool_call_id: 'a' },
      { role: 'tool', content: 'B', tool_name: 'list_dir', tool_call_id: 'b' },
    ])
    expect(await provider.listModels()).toEqual(['qwen2.5-coder:7b', 'llama3.2:latest'])
    const orphan = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'qwen2.5-coder:7b',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', content: 'y' },
        ],
      }),
    })
    expect(orphan.status).toBe(400)
  })

  it('a model without the "tools" capability gets the text tool protocol', async () => {
    const { provider } = await setup({
      show: { capabilities: ['completion'] },
      turns: [
        { text: 'Sure.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "b"}}\n</tool_call>' },
      ],
    })
    const out = await runTurn(provider, afterCalls)
    expect(out.turn).toEqual({
      text: 'Sure.',
      toolCalls: [{ id: ID, name: 'read_file', arguments: '{"path":"b"}' }],
      usage: { inputTokens: 10, outputTokens: 5 },
      finishReason: 'stop',
      textToolCalls: true,
    })
    expect(chatRequests()[0].body).not.toHaveProperty('tools')
    expect(chatRequests()[0].body.messages).toEqual([
      { role: 'system', content: `S\n\n${textToolPrompt(TEST_TOOLS)}` },
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content:
          'Reading.\n<tool_call>\n{"name": "read_file", "arguments": {"path":"x"}}\n</tool_call>\n<tool_call>\n{"name": "list_dir", "arguments": {}}\n</tool_call>',
      },
      { role: 'user', content: '<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response>' },
    ])
  })

  it('400 "does not support tools" → resend once with the text protocol, and remember it', async () => {
    const { provider } = await setup({
      turns: [
        {
          status: 400,
          body: JSON.stringify({ error: 'registry.ollama.ai/library/gemma3:4b does not support tools' }),
        },
        { text: '{"name": "list_dir", "arguments": {"path": "."}}' },
        { text: 'plain' },
      ],
    })
    const out = await runTurn(provider, userRequest())
    expect(out.turn).toMatchObject({
      text: '',
      toolCalls: [{ name: 'list_dir', arguments: '{"path":"."}' }],
      textToolCalls: true,
    })
    expect(chatRequests().map((r) => 'tools' in r.body)).toEqual([true, false])
    expect(out.traffic.map((t) => t.status)).toEqual([undefined, 400, undefined, 200])
    await runTurn(provider, userRequest())
    expect(chatRequests().map((r) => 'tools' in r.body)).toEqual([true, false, false])
  })

  it('stream quirks: calls in done:false and done:true chunks are appended; garbage lines skipped; lines after done ignored', async () => {
    const call = (id: string | undefined, name: string) => ({
      ...(id ? { id } : {}),
      function: { index: 0, name, arguments: { n: name } },
    })
    const { provider } = await setup({
      turns: [
        {
          raw:
            line({
              message: { role: 'assistant', content: 'a', tool_calls: [call('x1', 'read_file')] },
              done: false,
            }) +
            'garbage that is not json\n' +
            line({
              message: { role: 'assistant', content: '', tool_calls: [call(undefined, 'list_dir')] },
              done: true,
              done_reason: 'stop',
              prompt_eval_count: 3,
              eval_count: 4,
            }) +
            line({ message: { role: 'assistant', content: 'after done' }, done: false }),
          chunkBytes: [1, 7],
        },
      ],
    })
    expect((await runTurn(provider, userRequest())).turn).toEqual({
      text: 'a',
      toolCalls: [
        { id: 'x1', name: 'read_file', arguments: '{"n":"read_file"}' },
        { id: ID, name: 'list_dir', arguments: '{"n":"list_dir"}' },
      ],
      usage: { inputTokens: 3, outputTokens: 4 },
      finishReason: 'stop',
    })
  })

  it('errors: 404 unknown model, 503 busy, mid-stream error line, no done, HTML', async () => {
    const { provider } = await setup({
      turns: [
        {
          status: 503,
          body: JSON.stringify({
            error: 'server busy, please try again.  maximum pending requests exceeded',
          }),
        },
        {
          raw:
            line({ message: { role: 'assistant', content: 'Yes' }, done: false }) +
            '{"error":"an error was encountered while running the model"}\n',
        },
        { raw: line({ message: { role: 'assistant', content: 'Yes' }, done: false }) },
        { raw: '<html><title>Not Ollama</title></html>', contentType: 'text/html' },
      ],
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'server', status: 503 })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({
      kind: 'server',
      message: expect.stringContaining('an error was encountered'),
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-response' })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-response' })

    await server!.close()
    server = await startFakeModelServer({ models: ['llama3.2:latest'] })
    const missing = createProvider({ provider: 'ollama', model: 'qwen9', baseUrl: server.url })
    const out = await runTurn(missing, userRequest())
    expect(out.error).toMatchObject({ kind: 'not-found', status: 404 })
    expect((out.error as Error).message).toContain("model 'qwen9' not found")
  })
})
