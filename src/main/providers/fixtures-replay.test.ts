import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  replayFile,
  startFakeModelServer,
  type FakeModelServer,
  type FakeTurn,
} from '../../../test/fake-model-server'
import { modelStreamFixture, sharedFixturesDir } from '../../../test/fixtures'
import { runTurn, userRequest } from '../../../test/provider-harness'
import { createProvider } from './index'
import { parseJsonObject } from '../../shared/records'
import { NdjsonParser } from './ndjson'
import { ProviderError, type ModelTurn, type ProviderErrorKind } from './types'

/**
 * Every file in test/fixtures/model-streams is replayed through its adapter, split
 * into 1–7-byte TCP writes, and the whole resulting turn (or the error kind) is checked.
 */

const GEN_ID = expect.stringMatching(/^call_[a-z0-9]{24}$/)
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens })

type Expectation = { turn: ModelTurn } | { error: ProviderErrorKind; code?: string }

function chatTextFixtureContent(): string {
  // An independent oracle for the big recorded text stream: the content of every chunk before [DONE].
  const body = readFileSync(modelStreamFixture('chat_text_with_usage.sse'), 'utf8').split('data: [DONE]')[0]
  return [...body.matchAll(/^data: (.*)$/gm)]
    .map((m) => JSON.parse(m[1]).choices[0]?.delta?.content ?? '')
    .join('')
}

const twoSynthCalls = [
  { id: 'call_synthA', name: 'read_file', arguments: '{"path":"src/main.ts"}' },
  { id: 'call_synthB', name: 'list_dir', arguments: '{"path":"src"}' },
]

const EXPECTED: Record<string, Expectation> = {
  'resp_two_calls.sse': {
    turn: {
      text: '',
      toolCalls: [
        {
          id: 'call_SJiaC1TXbxeEz3E9NqIitlNw',
          name: 'search',
          arguments: '{"query":"Detroit Tigers game schedule October 10 2023"}',
        },
        { id: 'call_m6EXLHUhaq7ofMlz1ktzS8R8', name: 'weather', arguments: '{"city":"Detroit"}' },
      ],
      usage: usage(76, 52),
      finishReason: 'completed',
      responseId: 'resp_6859a4b648b0819bb6963bad04fb966c0b58dbf6cd1e2457',
    },
  },
  'resp_one_call_azure.sse': {
    turn: {
      text: '',
      toolCalls: [
        { id: 'call_H5DxLSFnsGhiROnUiDHmgyc8', name: 'weather', arguments: '{"location":"San Francisco"}' },
      ],
      usage: usage(45, 24),
      finishReason: 'completed',
      responseId: 'resp_04041325ab8ae30400698c519fb7fc81979972618138fc336d',
    },
  },
  'resp_text_then_two_calls.synth.sse': {
    turn: {
      text: "I'll look at both files.",
      toolCalls: twoSynthCalls,
      usage: usage(812, 61),
      finishReason: 'completed',
      responseId: 'resp_synth_0001',
    },
  },
  'resp_missing_content_part.synth.sse': {
    turn: {
      text: "I'll look at both files.",
      toolCalls: twoSynthCalls,
      usage: usage(812, 61),
      finishReason: 'completed',
      responseId: 'resp_synth_0001',
    },
  },
  'resp_stream_rate_limited.sse': { error: 'rate-limit', code: 'rate_limit_exceeded' },

  'chat_A_whole_call_one_chunk.synth.sse': {
    turn: {
      text: '',
      toolCalls: [
        { id: 'call_O17Uplv4lJvD6DVdIvFFeRMw', name: 'test-tool', arguments: '{"value":"Sparkle Day"}' },
      ],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_B_empty_args.synth.sse': {
    turn: {
      text: '',
      toolCalls: [{ id: 'call_x', name: 'list_dir', arguments: '{}' }],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_D_vllm_name_repeated_no_id.synth.sse': {
    turn: {
      text: '',
      toolCalls: [{ id: GEN_ID, name: 'get_current_weather', arguments: '{"location":"Paris"}' }],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_E_lmstudio_empty_name_id.synth.sse': {
    turn: {
      text: '',
      toolCalls: [{ id: '193629320', name: 'bash', arguments: '{"command":"ls"}' }],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_F_no_index.synth.sse': {
    turn: {
      text: '',
      toolCalls: [{ id: 'call_a', name: 'f', arguments: '{"a":1}' }],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_G_reused_index0.synth.sse': {
    turn: {
      text: '',
      toolCalls: [
        { id: 'call_1', name: 'a', arguments: '{}' },
        { id: 'call_2', name: 'b', arguments: '{}' },
      ],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_H_utf8_args.synth.sse': {
    turn: {
      text: '',
      toolCalls: [{ id: 'call_u', name: 'write', arguments: '{"text":"héllo 世界 🎉"}' }],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_I_instream_error.synth.sse': { error: 'context-overflow', code: 'context_length_exceeded' },
  'chat_index_starts_at_1.sse': {
    turn: {
      text: 'Reading it.',
      toolCalls: [{ id: 'toolu_sanitized', name: 'read_file', arguments: '{"path": "a.txt"}' }],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_llamacpp_error_field.synth.sse': { error: 'context-overflow' },
  'chat_parallel_calls.sse': {
    turn: {
      text: '',
      toolCalls: [
        {
          id: 'call_f2sPutYIWd2MUjT5duNrTdWT',
          name: 'search',
          arguments: '{"query": "Detroit Tigers game time today"}',
        },
        { id: 'call_HvNKxQIY6Q3wHUOKIJzSVdyq', name: 'weather', arguments: '{"city": "Detroit"}' },
      ],
      usage: usage(0, 0),
      finishReason: 'tool_calls',
    },
  },
  'chat_text_with_usage.sse': {
    turn: { text: chatTextFixtureContent(), toolCalls: [], usage: usage(16, 300), finishReason: 'stop' },
  },
  'chat_truncated_mid_json.synth.sse': { error: 'bad-response' },

  'ollama_chat_call_in_final.synth.ndjson': {
    turn: {
      text: 'Let me check. ',
      toolCalls: [
        {
          id: 'call_k3x9q2ab',
          name: 'get_weather',
          arguments: '{"location":"Seattle, WA","unit":"celsius"}',
        },
      ],
      usage: usage(169, 15),
      finishReason: 'stop',
    },
  },
  'ollama_chat_call_then_done.synth.ndjson': {
    turn: {
      text: '',
      toolCalls: [{ id: 'call_k3x9q2ab', name: 'get_weather', arguments: '{"city":"Tokyo"}' }],
      usage: usage(169, 15),
      finishReason: 'stop',
    },
  },
  'ollama_chat_legacy_no_id.synth.ndjson': {
    turn: {
      text: '',
      toolCalls: [{ id: GEN_ID, name: 'get_weather', arguments: '{"city":"Tokyo"}' }],
      usage: usage(169, 15),
      finishReason: 'stop',
    },
  },
  'ollama_chat_two_calls_two_chunks.synth.ndjson': {
    turn: {
      text: '',
      toolCalls: [
        { id: 'call_aaaa1111', name: 'get_temperature', arguments: '{"city":"New York"}' },
        { id: 'call_bbbb2222', name: 'get_conditions', arguments: '{"city":"New York"}' },
      ],
      usage: usage(169, 15),
      finishReason: 'stop',
    },
  },
  'ollama_chat_qwen25coder_bare_json.synth.ndjson': {
    turn: {
      text: '',
      toolCalls: [{ id: GEN_ID, name: 'read_file', arguments: '{"path":"README.md"}' }],
      usage: usage(169, 15),
      finishReason: 'stop',
      textToolCalls: true,
    },
  },
  'ollama_chat_midstream_error.synth.ndjson': { error: 'server' },
  'ollama_chat_no_done.synth.ndjson': { error: 'bad-response' },
}

/** Pull progress is for a later feature; here the NDJSON reader must read it. */
const PULL_FIXTURES = ['ollama_pull_ok.synth.ndjson', 'ollama_pull_bad_name.synth.ndjson']

const streamsDir = path.join(sharedFixturesDir, 'model-streams')
const files = readdirSync(streamsDir).filter((f) => f.endsWith('.sse') || f.endsWith('.ndjson'))

function providerFor(file: string, server: FakeModelServer) {
  if (file.startsWith('resp_'))
    return createProvider({ provider: 'openai', model: 'gpt-4.1', baseUrl: server.v1Url, apiKey: 'k' })
  if (file.startsWith('chat_'))
    return createProvider({ provider: 'openai-chat', model: 'm', baseUrl: server.v1Url })
  return createProvider({ provider: 'ollama', model: 'qwen3', baseUrl: server.url })
}

describe('replaying every recorded and synthesized stream in 1–7-byte chunks', () => {
  let current: FakeTurn | undefined
  let server: FakeModelServer
  beforeAll(async () => {
    server = await startFakeModelServer({ turns: () => current! })
  })
  afterAll(() => server.close())

  it('has an expectation for every fixture file', () => {
    expect(files.filter((f) => !(f in EXPECTED) && !PULL_FIXTURES.includes(f))).toEqual([])
    expect(files.length).toBe(Object.keys(EXPECTED).length + PULL_FIXTURES.length)
  })

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(file, async () => {
      current = replayFile(modelStreamFixture(file), { chunkBytes: [1, 7] })
      const outcome = await runTurn(providerFor(file, server), userRequest())
      const raw = readFileSync(modelStreamFixture(file), 'utf8')
      // The traffic log holds the response body exactly as received (up to the error
      // event when reading stopped there).
      const logged = outcome.traffic.at(-1)
      expect(logged).toMatchObject({ direction: 'response', status: 200 })
      if ('turn' in expected) expect(logged?.body).toBe(raw)
      else expect(raw.startsWith(logged?.body ?? '<none>')).toBe(true)
      if ('turn' in expected) {
        expect(outcome.error).toBeUndefined()
        expect(outcome.turn).toEqual(expected.turn)
        if (!expected.turn.textToolCalls) expect(outcome.deltas.join('')).toBe(expected.turn.text)
        // Each native call is announced once, by name, while the response still streams; calls
        // written in the text are found only once it has all come.
        const native = expected.turn.textToolCalls ? [] : expected.turn.toolCalls
        expect(outcome.calls).toEqual(native.map((c) => c.name).filter((name) => name !== ''))
      } else {
        expect(outcome.error).toBeInstanceOf(ProviderError)
        expect(outcome.error).toMatchObject({
          kind: expected.error,
          ...(expected.code ? { code: expected.code } : {}),
        })
      }
    })
  }

  it('reads Ollama pull progress with the NDJSON reader, through the error line', () => {
    const read = (file: string, bytes: number) => {
      const text = readFileSync(modelStreamFixture(file), 'utf8')
      const lines: unknown[] = []
      const parser = new NdjsonParser((line) => lines.push(parseJsonObject(line)))
      for (let i = 0; i < text.length; i += bytes) parser.push(text.slice(i, i + bytes))
      parser.end()
      return lines
    }
    const ok = read('ollama_pull_ok.synth.ndjson', 5)
    expect(ok).toHaveLength(8)
    expect(ok[2]).toEqual({
      status: 'pulling dde5aa3fc5ff',
      digest: 'sha256:dde5aa3fc5ffc17176b5e8bdc82f587b24b2678c6c66101bf7da77af9f7ccdff',
      total: 2019377376,
      completed: 241970,
    })
    expect(ok.at(-1)).toEqual({ status: 'success' })
    expect(read('ollama_pull_bad_name.synth.ndjson', 3)).toEqual([
      { status: 'pulling manifest' },
      { error: 'pull model manifest: file does not exist' },
    ])
  })
})
