/**
 * A scripted fake model server speaking all three wire protocols, for tests.
 *
 *   const server = await startFakeModelServer({
 *     turns: [
 *       { text: 'Reading it.', toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
 *       { text: 'Done.' },
 *     ],
 *   })
 *   createProvider({ provider: 'openai', model: 'm', baseUrl: server.v1Url, apiKey: 'k' })      // /v1/responses
 *   createProvider({ provider: 'openai-chat', model: 'm', baseUrl: server.v1Url })               // /v1/chat/completions
 *   createProvider({ provider: 'ollama', model: 'qwen2.5-coder:7b', baseUrl: server.url })       // /api/chat
 *   …
 *   server.requests  // every request: { path, method, body (parsed JSON), headers }
 *   await server.close()
 *
 * Turns are consumed in order by POST /v1/responses, /v1/chat/completions and
 * /api/chat, whichever protocol asks (or `turns` is a function `(req, index) => FakeTurn`).
 * A turn is either scripted content, streamed in the protocol's own shape (text in a
 * few deltas, tool calls, usage), or a fault:
 *   { status: 429, body: '{"error":…}', headers: { 'retry-after-ms': '0' } }  an HTTP error
 *   { raw: '<html>…', contentType: 'text/html' }    bytes as-is (also `replayFile(path, { chunkBytes })`)
 *   { closeMidStream: true }                       status 200, part of a stream, then the socket is destroyed
 *   { hang: true }                                 status 200 and nothing more, until the client aborts
 *   { hang: true, partial: true }                  status 200, part of a stream ("Hello there"), then nothing
 * When the script runs out the server answers 400 "no scripted turn left".
 *
 * Like the real APIs it FAILS (HTTP 400, OpenAI-style body, without consuming a turn)
 * on a tool output that answers no call and on a call left without output:
 * Responses checks `function_call_output` ids against the calls of the response named
 * by `previous_response_id` (or the `function_call` items of a stateless input), and
 * rejects `role:"tool"` and unknown response ids (`previous_response_not_found`; set
 * `forgetResponses` to make every id unknown); Chat requires each `role:"tool"` message
 * to answer a call of the assistant message before it, and every call to be answered;
 * Ollama requires tool messages to follow an assistant message with tool_calls, and
 * answers 400 "does not support tools" when tools are sent to a model whose `show`
 * capabilities lack "tools".
 *
 * /api/show answers from `show` (default qwen2, 32768, ["completion","tools"]);
 * /api/tags lists `models`. If `models` is given, other model names get Ollama's 404.
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  chatStream,
  ollamaStream,
  partialStream,
  responsesStream,
  type FakeScriptedTurn,
} from './fake-model-streams'
import {
  validateChat,
  validateOllama,
  validateResponses,
  type FakeHttpError,
  type ResponseCalls,
} from './fake-model-validate'

export type { FakeScriptedTurn, FakeToolCall } from './fake-model-streams'

/** Bytes per TCP write: a fixed size, or [min, max] chosen by a seeded generator (reproducible). */
export type ChunkBytes = number | [number, number]

export type FakeTurn =
  | FakeScriptedTurn
  | { status: number; body: string; headers?: Record<string, string> }
  | { raw: string | Buffer; contentType?: string; chunkBytes?: ChunkBytes }
  | { closeMidStream: true }
  | { hang: true; partial?: boolean }

export type FakeProtocol = 'responses' | 'chat' | 'ollama'

export interface FakeRequest {
  path: string
  method: string
  /**
   * Parsed JSON (the raw text if it was not JSON; undefined for GET). Typed loosely
   * on purpose so tests can write `server.requests[1].body.input[0]`.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any
  headers: http.IncomingHttpHeaders
}

export interface FakeModelServerOptions {
  turns?: FakeTurn[] | ((req: FakeRequest & { protocol: FakeProtocol }, index: number) => FakeTurn)
  /** /api/show answer. */
  show?: { architecture?: string; contextLength?: number; capabilities?: string[] }
  /** Installed Ollama models (/api/tags); when given, other names get 404 "model 'x' not found". */
  models?: string[]
  /** Treat every previous_response_id as unknown (a server with store:false). */
  forgetResponses?: boolean
  /** Split scripted streams into TCP writes of this size (default: one write per event). */
  chunkBytes?: ChunkBytes
  /** Models /api/pull can fetch (added to `models` when done), and the pause between progress lines. */
  pullable?: string[]
  pullStepMs?: number
  /** Listen on this port (a server started again where a killed one listened); default: any free port. */
  port?: number
}

export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`: the Ollama base URL. */
  url: string
  /** `${url}/v1`: the OpenAI base URL. */
  v1Url: string
  requests: FakeRequest[]
  /** How many turns have been consumed. */
  readonly turnsUsed: number
  close(): Promise<void>
}

/** A fault turn that streams a fixture file as-is (SSE or NDJSON by extension). */
export function replayFile(
  file: string,
  opts: { chunkBytes?: ChunkBytes; contentType?: string } = {},
): FakeTurn {
  const contentType =
    opts.contentType ?? (file.endsWith('.ndjson') ? 'application/x-ndjson' : 'text/event-stream')
  return { raw: readFileSync(file), contentType, chunkBytes: opts.chunkBytes }
}

const PROTOCOLS: Record<string, FakeProtocol> = {
  '/v1/responses': 'responses',
  '/v1/chat/completions': 'chat',
  '/api/chat': 'ollama',
}

export async function startFakeModelServer(opts: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const requests: FakeRequest[] = []
  const responseCalls: ResponseCalls = new Map()
  const show = {
    architecture: 'qwen2',
    contextLength: 32768,
    capabilities: ['completion', 'tools'],
    ...opts.show,
  }
  let turnsUsed = 0

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      let body: unknown
      try {
        body = text ? JSON.parse(text) : undefined
      } catch {
        body = text
      }
      const path = (req.url ?? '/').split('?')[0]
      const fake: FakeRequest = { path, method: req.method ?? 'GET', body, headers: req.headers }
      requests.push(fake)
      handle(fake, res).catch(() => res.destroy())
    })
  })

  async function handle(req: FakeRequest, res: http.ServerResponse): Promise<void> {
    if (req.path === '/api/tags')
      return json(res, 200, { models: (opts.models ?? ['qwen2.5-coder:7b']).map(tagEntry) })
    if (req.path === '/v1/models' && req.method === 'GET')
      return json(res, 200, { object: 'list', data: (opts.models ?? ['gpt-4.1-mini']).map((id) => ({ id })) })
    if (req.path === '/api/pull') return pull(String(req.body?.model ?? ''), res)
    if (req.path === '/api/show') {
      if (!knownModel(req.body?.model))
        return json(res, 404, { error: `model '${req.body?.model}' not found` })
      return json(res, 200, showAnswer(show))
    }
    const protocol = PROTOCOLS[req.path]
    if (!protocol || req.method !== 'POST')
      return json(res, 404, { error: `fake-model-server: no route ${req.method} ${req.path}` })
    if (protocol === 'ollama' && !knownModel(req.body?.model))
      return json(res, 404, { error: `model '${req.body?.model}' not found` })
    const invalid = validate(protocol, req.body ?? {})
    if (invalid) return send(res, invalid)

    const turn = nextTurn({ ...req, protocol })
    if (!turn) {
      return json(res, 400, {
        error: {
          message: `fake-model-server: no scripted turn left (${turnsUsed} used)`,
          type: 'invalid_request_error',
        },
      })
    }
    if ('status' in turn) return send(res, turn)
    if ('hang' in turn) {
      res.writeHead(200, { 'content-type': contentTypeOf(protocol) })
      if (turn.partial) await write(res, Buffer.from(partialStream(protocol)))
      else res.flushHeaders()
      return
    }
    if ('closeMidStream' in turn) {
      res.writeHead(200, { 'content-type': contentTypeOf(protocol) })
      await write(res, Buffer.from(partialStream(protocol)))
      res.socket?.destroy()
      return
    }
    if ('raw' in turn) {
      res.writeHead(200, { 'content-type': turn.contentType ?? contentTypeOf(protocol) })
      await writeChunked(res, [Buffer.from(turn.raw)], turn.chunkBytes)
      return void res.end()
    }
    if (turn.delayMs) await new Promise((r) => setTimeout(r, turn.delayMs))
    const parts = render(protocol, turn, req.body ?? {}, turnsUsed - 1)
    res.writeHead(200, { 'content-type': contentTypeOf(protocol) })
    const buffers = parts.map((p) => Buffer.from(p))
    if (turn.paceMs) await writeEach(res, buffers, () => new Promise((r) => setTimeout(r, turn.paceMs)))
    else await writeChunked(res, buffers, opts.chunkBytes)
    res.end()
  }

  function validate(protocol: FakeProtocol, body: Record<string, unknown>): FakeHttpError | undefined {
    if (protocol === 'responses') return validateResponses(body, responseCalls, opts.forgetResponses ?? false)
    if (protocol === 'chat') return validateChat(body)
    return validateOllama(body, show.capabilities)
  }

  function nextTurn(req: FakeRequest & { protocol: FakeProtocol }): FakeTurn | undefined {
    const turns = opts.turns ?? []
    const turn = typeof turns === 'function' ? turns(req, turnsUsed) : turns[turnsUsed]
    if (turn) turnsUsed++
    return turn
  }

  /** Ids are predictable: `resp_fake_<turn>` and `call_fake_<turn>_<i>` (turn counted from 0). */
  function render(
    protocol: FakeProtocol,
    turn: FakeScriptedTurn,
    body: Record<string, unknown>,
    n: number,
  ): string[] {
    const callIds = (turn.toolCalls ?? []).map((c, i) => c.id ?? `call_fake_${n}_${i}`)
    if (protocol === 'responses') {
      const responseId = `resp_fake_${n}`
      responseCalls.set(responseId, callIds)
      return responsesStream(turn, responseId, callIds)
    }
    if (protocol === 'chat') return chatStream(turn, callIds)
    return ollamaStream(turn, String(body.model ?? 'fake'), callIds)
  }

  /** Ollama's pull stream: manifest, a layer downloading in ten steps, then success. */
  async function pull(model: string, res: http.ServerResponse): Promise<void> {
    if (!(opts.pullable ?? []).includes(model)) {
      return json(res, 500, { error: `pull model manifest: file does not exist` })
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' })
    const line = (o: object) => write(res, Buffer.from(`${JSON.stringify(o)}\n`))
    await line({ status: 'pulling manifest' })
    const total = 4_683_073_184
    for (let i = 1; i <= 10; i++) {
      await new Promise((r) => setTimeout(r, opts.pullStepMs ?? 20))
      await line({
        status: 'pulling 2bada8a74506',
        digest: 'sha256:2bada8a74506',
        total,
        completed: (total * i) / 10,
      })
    }
    await line({ status: 'verifying sha256 digest' })
    await line({ status: 'success' })
    opts.models = [...(opts.models ?? ['qwen2.5-coder:7b']), model]
    res.end()
  }

  function knownModel(model: unknown): boolean {
    return !opts.models || opts.models.includes(String(model))
  }

  const sockets = new Set<import('node:net').Socket>()
  server.on('connection', (s) => {
    s.setNoDelay(true)
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    v1Url: `${url}/v1`,
    requests,
    get turnsUsed() {
      return turnsUsed
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

function contentTypeOf(protocol: FakeProtocol): string {
  return protocol === 'ollama' ? 'application/x-ndjson' : 'text/event-stream'
}

function json(res: http.ServerResponse, status: number, value: unknown): void {
  send(res, { status, body: JSON.stringify(value) })
}

function send(
  res: http.ServerResponse,
  reply: { status: number; body: string; headers?: Record<string, string> },
): void {
  const isJson = /^\s*[[{]/.test(reply.body)
  res.writeHead(reply.status, {
    'content-type': isJson ? 'application/json' : 'text/plain',
    ...reply.headers,
  })
  res.end(reply.body)
}

function tagEntry(name: string): unknown {
  return {
    name,
    model: name,
    modified_at: '2025-05-04T17:37:44.706015396-07:00',
    size: 2019393189,
    digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
    details: {
      parent_model: '',
      format: 'gguf',
      family: 'qwen2',
      families: ['qwen2'],
      parameter_size: '7.6B',
      quantization_level: 'Q4_K_M',
    },
  }
}

function showAnswer(show: { architecture: string; contextLength: number; capabilities: string[] }): unknown {
  return {
    modelfile: '',
    parameters: '',
    template: '',
    details: { format: 'gguf', family: show.architecture },
    model_info: {
      'general.architecture': show.architecture,
      [`${show.architecture}.context_length`]: show.contextLength,
    },
    capabilities: show.capabilities,
  }
}

function write(res: http.ServerResponse, buf: Buffer): Promise<void> {
  return new Promise((resolve, reject) => res.write(buf, (err) => (err ? reject(err) : resolve())))
}

/** One write per part, `pause` awaited between writes. */
async function writeEach(
  res: http.ServerResponse,
  parts: Buffer[],
  pause: () => Promise<unknown>,
): Promise<void> {
  for (const [i, p] of parts.entries()) {
    if (i > 0) await pause()
    if (res.destroyed) return
    await write(res, p)
  }
}

const nextLoopTurn = () => new Promise((r) => setImmediate(r))

/** Writes each part, or re-splits everything into `chunkBytes`-sized writes, yielding between writes. */
async function writeChunked(
  res: http.ServerResponse,
  parts: Buffer[],
  chunkBytes: ChunkBytes | undefined,
): Promise<void> {
  if (chunkBytes === undefined) return writeEach(res, parts, nextLoopTurn)
  const all = Buffer.concat(parts)
  let seed = 42
  const nextSize = () => {
    if (typeof chunkBytes === 'number') return chunkBytes
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    return chunkBytes[0] + (seed % (chunkBytes[1] - chunkBytes[0] + 1))
  }
  for (let i = 0; i < all.length;) {
    const n = Math.max(1, nextSize())
    if (res.destroyed) return
    await write(res, all.subarray(i, i + n))
    await nextLoopTurn()
    i += n
  }
}
