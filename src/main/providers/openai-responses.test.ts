import { afterEach, describe, expect, it } from 'vitest'
import {
  startFakeModelServer,
  type FakeModelServer,
  type FakeModelServerOptions,
} from '../../../test/fake-model-server'
import { runTurn, TEST_TOOLS, userRequest } from '../../../test/provider-harness'
import { createProvider } from './index'
import { MISSING_OUTPUT } from './transcript'
import type { ModelRequest, TranscriptItem } from './types'

type ErrorBody = { error: { message: string } }
let server: FakeModelServer | undefined
afterEach(() => server?.close())

async function setup(opts: FakeModelServerOptions) {
  server = await startFakeModelServer(opts)
  return {
    server,
    provider: createProvider({
      provider: 'openai',
      model: 'gpt-4.1',
      baseUrl: server.v1Url,
      apiKey: 'sk-test',
    }),
  }
}

const FLAT_TOOLS = TEST_TOOLS.map((t) => ({
  type: 'function',
  name: t.name,
  description: t.description,
  parameters: t.parameters,
  strict: false,
}))

/** A transcript after a turn with two calls, both answered. */
function followUp(responseId: string | undefined): ModelRequest {
  const transcript: TranscriptItem[] = [
    { role: 'user', text: 'Open src/main.ts' },
    {
      role: 'assistant',
      text: 'Looking.',
      toolCalls: [
        { id: 'call_fake_0_0', name: 'read_file', arguments: '{"path":"src/main.ts"}' },
        { id: 'call_fake_0_1', name: 'list_dir', arguments: '{"path":"src"}' },
      ],
      ...(responseId ? { responseId } : {}),
    },
    { role: 'tool', callId: 'call_fake_0_0', name: 'read_file', output: '{"ok":true,"content":"x"}' },
    { role: 'tool', callId: 'call_fake_0_1', name: 'list_dir', output: '{"ok":true,"entries":[]}' },
  ]
  return { system: 'You are a coding agent.', transcript, tools: TEST_TOOLS }
}

const STATELESS_INPUT = [
  { role: 'user', content: 'Open src/main.ts' },
  { role: 'assistant', content: 'Looking.' },
  { type: 'function_call', call_id: 'call_fake_0_0', name: 'read_file', arguments: '{"path":"src/main.ts"}' },
  { type: 'function_call', call_id: 'call_fake_0_1', name: 'list_dir', arguments: '{"path":"src"}' },
  { type: 'function_call_output', call_id: 'call_fake_0_0', output: '{"ok":true,"content":"x"}' },
  { type: 'function_call_output', call_id: 'call_fake_0_1', output: '{"ok":true,"entries":[]}' },
]

describe('openai (Responses API)', () => {
  it('streams a scripted turn: first request shape, text deltas, calls, usage, response id', async () => {
    const { server, provider } = await setup({
      turns: [
        {
          text: 'Looking at it.',
          toolCalls: [{ name: 'read_file', arguments: { path: 'src/main.ts' } }],
          usage: { inputTokens: 40, outputTokens: 9 },
        },
      ],
    })
    const out = await runTurn(provider, userRequest())
    expect(out.turn).toEqual({
      text: 'Looking at it.',
      toolCalls: [{ id: 'call_fake_0_0', name: 'read_file', arguments: '{"path":"src/main.ts"}' }],
      usage: { inputTokens: 40, outputTokens: 9 },
      finishReason: 'completed',
      responseId: 'resp_fake_0',
    })
    expect(out.deltas.length).toBeGreaterThan(1)
    expect(out.deltas.join('')).toBe('Looking at it.')
    expect(server.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/v1/responses', 'Bearer sk-test'],
    ])
    expect(server.requests[0].body).toEqual({
      model: 'gpt-4.1',
      stream: true,
      instructions: 'You are a coding agent.',
      input: [{ role: 'user', content: 'Open src/main.ts' }],
      tools: FLAT_TOOLS,
    })
    expect(out.traffic.map((t) => [t.direction, t.url, t.status])).toEqual([
      ['request', `${server.v1Url}/responses`, undefined],
      ['response', `${server.v1Url}/responses`, 200],
    ])
    expect(JSON.parse(out.traffic[0].body)).toEqual(server.requests[0].body)
  })

  it('follow-up: previous_response_id, one function_call_output per call, tools and instructions re-sent, no role:"tool"', async () => {
    const { server, provider } = await setup({
      turns: [
        {
          toolCalls: [
            { name: 'read_file', arguments: { path: 'src/main.ts' } },
            { name: 'list_dir', arguments: { path: 'src' } },
          ],
        },
        { text: 'Done.' },
      ],
    })
    expect((await runTurn(provider, userRequest())).turn?.responseId).toBe('resp_fake_0')
    const out = await runTurn(provider, followUp('resp_fake_0'))
    expect(out.turn).toMatchObject({ text: 'Done.', toolCalls: [], responseId: 'resp_fake_1' })
    expect(server.requests[1].body).toEqual({
      model: 'gpt-4.1',
      stream: true,
      instructions: 'You are a coding agent.',
      previous_response_id: 'resp_fake_0',
      input: [
        { type: 'function_call_output', call_id: 'call_fake_0_0', output: '{"ok":true,"content":"x"}' },
        { type: 'function_call_output', call_id: 'call_fake_0_1', output: '{"ok":true,"entries":[]}' },
      ],
      tools: FLAT_TOOLS,
    })
  })

  it('a call without a recorded output still gets one (a placeholder), so none goes unanswered', async () => {
    const { server, provider } = await setup({
      turns: [
        {
          toolCalls: [
            { name: 'read_file', arguments: {} },
            { name: 'list_dir', arguments: {} },
          ],
        },
        { text: 'ok' },
      ],
    })
    await runTurn(provider, userRequest())
    const req = followUp('resp_fake_0')
    req.transcript.pop()
    expect((await runTurn(provider, req)).turn?.text).toBe('ok')
    expect(server.requests[1].body.input[1]).toEqual({
      type: 'function_call_output',
      call_id: 'call_fake_0_1',
      output: MISSING_OUTPUT,
    })
  })

  it('falls back to the stateless full history once on previous_response_not_found', async () => {
    const { server, provider } = await setup({ forgetResponses: true, turns: [{ text: 'Recovered.' }] })
    const out = await runTurn(provider, followUp('resp_lost'))
    expect(out.turn?.text).toBe('Recovered.')
    expect(server.requests.map((r) => r.body.previous_response_id)).toEqual(['resp_lost', undefined])
    expect(server.requests[1].body.input).toEqual(STATELESS_INPUT)
    expect(out.traffic.map((t) => [t.direction, t.status])).toEqual([
      ['request', undefined],
      ['response', 400],
      ['request', undefined],
      ['response', 200],
    ])
  })

  it('falls back on "No tool output found" too, and sends the full history when there is no response id', async () => {
    const { server, provider } = await setup({
      turns: [
        {
          toolCalls: [
            { name: 'read_file', arguments: {} },
            { name: 'list_dir', arguments: {} },
          ],
        },
        {
          status: 400,
          body: JSON.stringify({
            error: {
              message: 'No tool output found for function call call_fake_0_0.',
              type: 'invalid_request_error',
              param: 'input',
              code: null,
            },
          }),
        },
        { text: 'A' },
        { text: 'B' },
      ],
    })
    await runTurn(provider, userRequest())
    server.requests.length = 0
    expect((await runTurn(provider, followUp('resp_fake_0'))).turn?.text).toBe('A')
    expect(server.requests.map((r) => r.body.previous_response_id)).toEqual(['resp_fake_0', undefined])
    expect((await runTurn(provider, followUp(undefined))).turn?.text).toBe('B')
    expect(server.requests[2].body.input).toEqual(STATELESS_INPUT)
    expect(server.requests[2].body).not.toHaveProperty('previous_response_id')
  })

  it('the fake server rejects an orphan tool output and role:"tool" without consuming a turn', async () => {
    const { server, provider } = await setup({ turns: [{ text: 'never' }] })
    const req = followUp(undefined)
    // Forge an orphan by hand: a chained request whose previous response has no such call.
    const res = await fetch(`${server.v1Url}/responses`, {
      method: 'POST',
      body: JSON.stringify({
        model: 'm',
        input: [{ type: 'function_call_output', call_id: 'call_nope', output: 'x' }],
      }),
    })
    expect(res.status).toBe(400)
    expect(((await res.json()) as ErrorBody).error.message).toBe(
      'No tool call found for function call output with call_id call_nope.',
    )
    const unanswered = await fetch(`${server.v1Url}/responses`, {
      method: 'POST',
      body: JSON.stringify({
        input: [
          { type: 'function_call', call_id: 'call_q', name: 'f', arguments: '{}' },
          { role: 'user', content: 'x' },
        ],
      }),
    })
    expect(((await unanswered.json()) as ErrorBody).error.message).toBe(
      'No tool output found for function call call_q.',
    )
    const roleTool = await fetch(`${server.v1Url}/responses`, {
      method: 'POST',
      body: JSON.stringify({ input: [{ role: 'tool', content: 'x' }] }),
    })
    expect(roleTool.status).toBe(400)
    expect(server.turnsUsed).toBe(0)
    expect((await runTurn(provider, req)).turn?.text).toBe('never')
  })

  const sse = (events: unknown[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')

  it('mid-stream error events, nested and flat, and response.failed', async () => {
    const { provider } = await setup({
      turns: [
        {
          raw: sse([
            { type: 'response.created', response: { id: 'r' } },
            {
              type: 'error',
              sequence_number: 2,
              error: {
                type: 'invalid_request_error',
                code: 'context_length_exceeded',
                message: 'Your input exceeds the context window of this model.',
                param: 'input',
              },
            },
          ]),
        },
        {
          raw: sse([
            {
              type: 'error',
              sequence_number: 2,
              code: 'insufficient_quota',
              message: 'You exceeded your current quota',
              param: null,
            },
          ]),
        },
        {
          raw: sse([
            {
              type: 'response.failed',
              response: {
                id: 'r',
                status: 'failed',
                error: { code: 'server_error', message: 'The server had an error.' },
              },
            },
          ]),
        },
      ],
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({
      kind: 'context-overflow',
      code: 'context_length_exceeded',
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({
      kind: 'quota',
      code: 'insufficient_quota',
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({
      kind: 'server',
      code: 'server_error',
    })
  })

  it('response.incomplete returns the partial turn with its reason; rotated item ids are correlated by output_index', async () => {
    const { provider } = await setup({
      turns: [
        {
          raw:
            sse([
              {
                type: 'response.output_text.delta',
                item_id: 'a1',
                output_index: 0,
                content_index: 0,
                delta: 'Hel',
              },
              {
                type: 'response.output_text.delta',
                item_id: 'a2',
                output_index: 0,
                content_index: 0,
                delta: 'lo,',
              },
            ]) +
            'data:{"type":"response.incomplete","response":{"id":"resp_67cadb40a0708190ac2763c0b6960f6f","status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","id":"msg_67","status":"incomplete","role":"assistant","content":[{"type":"output_text","text":"Hello,","annotations":[]}]}]}}\n\n',
        },
        {
          raw: sse([
            {
              type: 'response.output_item.added',
              output_index: 0,
              item: { id: 'x1', type: 'function_call', call_id: 'call_r', name: 'read_file', arguments: '' },
            },
            {
              type: 'response.function_call_arguments.delta',
              item_id: 'x2',
              output_index: 0,
              delta: '{"path":',
            },
            { type: 'response.function_call_arguments.delta', item_id: 'x3', output_index: 0, delta: '"a"}' },
            {
              type: 'response.completed',
              response: { id: 'resp_r', status: 'completed', usage: { input_tokens: 3, output_tokens: 4 } },
            },
          ]),
        },
      ],
    })
    expect((await runTurn(provider, userRequest())).turn).toEqual({
      text: 'Hello,',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      finishReason: 'max_output_tokens',
      responseId: 'resp_67cadb40a0708190ac2763c0b6960f6f',
    })
    expect((await runTurn(provider, userRequest())).turn).toEqual({
      text: '',
      toolCalls: [{ id: 'call_r', name: 'read_file', arguments: '{"path":"a"}' }],
      usage: { inputTokens: 3, outputTokens: 4 },
      finishReason: 'completed',
      responseId: 'resp_r',
    })
  })

  it('a stream that stops before response.completed is a bad response', async () => {
    const { provider } = await setup({
      turns: [{ raw: sse([{ type: 'response.created', response: { id: 'r' } }]) }],
    })
    expect((await runTurn(provider, userRequest())).error).toMatchObject({ kind: 'bad-response' })
  })

  it('parses text tool calls when the model wrote them as text', async () => {
    const { provider } = await setup({
      turns: [{ text: '<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>' }],
    })
    expect((await runTurn(provider, userRequest())).turn).toMatchObject({
      text: '',
      toolCalls: [{ name: 'read_file', arguments: '{"path":"a"}' }],
      textToolCalls: true,
    })
  })
})
