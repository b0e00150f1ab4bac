import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { runTurn, userRequest } from '../../../test/provider-harness'
import { createProvider } from './index'
import { withRetry } from './retry'
import { ProviderError, type ModelOptions, type ProviderConfig } from './types'

/*
 * Misbehaving model servers on 127.0.0.1, as the issue found them: one that accepts and never
 * answers, a slow-loris that sends a byte every few hundred ms after its headers (never a whole
 * event), and one that streams valid deltas forever. Each must end the turn within its limit, with
 * an error naming the limit and the way to change it. Small limits are injected here; the defaults
 * are minutes.
 */

type Behaviour = 'silent' | 'slow-loris' | 'stall' | 'endless' | 'answer'
type Protocol = 'openai' | 'openai-chat' | 'ollama'

interface Server {
  url: string
  bodies: Array<Record<string, unknown>>
  /** What each request to the chat path gets, in order; the last one repeats. */
  script: Behaviour[]
  close(): Promise<void>
}

let server: Server | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const delta: Record<Protocol, string> = {
  openai: `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', output_index: 0, delta: 'la ' })}\n\n`,
  'openai-chat': `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'la ' } }] })}\n\n`,
  ollama: `${JSON.stringify({ message: { role: 'assistant', content: 'la ' }, done: false })}\n`,
}

const finish: Record<Protocol, string> = {
  openai: `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { id: 'r1', output: [] } })}\n\n`,
  'openai-chat': `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
  ollama: `${JSON.stringify({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' })}\n`,
}

async function start(protocol: Protocol, script: Behaviour[]): Promise<Server> {
  const bodies: Array<Record<string, unknown>> = []
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let calls = 0
  const srv = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      if (req.url === '/api/show') return void res.end('{}')
      bodies.push(JSON.parse(raw) as Record<string, unknown>)
      const behaviour = script[Math.min(calls++, script.length - 1)]
      if (behaviour === 'silent') return // accepted; no headers, ever
      const type = protocol === 'ollama' ? 'application/x-ndjson' : 'text/event-stream'
      res.writeHead(200, { 'content-type': type })
      if (behaviour === 'answer') return void res.end(delta[protocol] + finish[protocol])
      if (behaviour === 'stall') res.write(delta[protocol])
      const every = behaviour === 'endless' ? 1 : 40
      const text = behaviour === 'endless' ? delta[protocol] : behaviour === 'stall' ? ':' : 'd'
      const timer = setInterval(() => res.write(text), every)
      timers.add(timer)
      res.on('close', () => clearInterval(timer))
    })
  })
  srv.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const { port } = srv.address() as AddressInfo
  const base = `http://127.0.0.1:${port}`
  return {
    url: protocol === 'ollama' ? base : `${base}/v1`,
    bodies,
    script,
    close: async () => {
      for (const t of timers) clearInterval(t)
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => srv.close(() => resolve()))
    },
  }
}

function provider(protocol: Protocol, url: string, options: ModelOptions) {
  const config: ProviderConfig = { provider: protocol, model: 'm', baseUrl: url, apiKey: 'k', ...options }
  return createProvider(config)
}

async function failure(protocol: Protocol, behaviour: Behaviour, options: ModelOptions) {
  server = await start(protocol, [behaviour])
  const t0 = Date.now()
  const outcome = await runTurn(provider(protocol, server.url, options), userRequest())
  return { error: outcome.error as ProviderError, ms: Date.now() - t0, outcome }
}

describe.each<Protocol>(['openai', 'openai-chat', 'ollama'])('stream limits: %s', (protocol) => {
  it('a server that accepts and never answers: the first-token timeout, named, retryable', async () => {
    const { error, ms } = await failure(protocol, 'silent', { firstTokenTimeoutSec: 1 })
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.kind).toBe('timeout')
    expect(error.retryable).toBe(true)
    expect(error.code).toBe('first-token-timeout')
    expect(error.message).toMatch(/within 1 s .*first-token timeout/)
    expect(error.hint).toMatch(/--first-token-timeout SECONDS.*"firstTokenTimeoutSec"/)
    expect(ms).toBeGreaterThanOrEqual(950)
    expect(ms).toBeLessThan(3000)
  })

  it('a slow-loris (headers, then a byte every 40 ms, never a whole event): still the first-token timeout', async () => {
    // The first-token wait ends at the first complete event only: bytes alone do not count.
    const { error, ms } = await failure(protocol, 'slow-loris', {
      firstTokenTimeoutSec: 1,
      idleTimeoutSec: 1,
    })
    expect(error.kind).toBe('timeout')
    expect(error.code).toBe('first-token-timeout')
    expect(ms).toBeLessThan(3000)
  })

  it('an answer that stalls after its first event (bytes trickle, no event): the idle timeout', async () => {
    const { error, ms, outcome } = await failure(protocol, 'stall', { idleTimeoutSec: 1 })
    expect(outcome.deltas).toEqual(['la '])
    expect(error.kind).toBe('timeout')
    expect(error.code).toBe('idle-timeout')
    expect(error.message).toMatch(/nothing complete arrived for 1 s \(the idle timeout\)/)
    expect(error.hint).toMatch(/--idle-timeout SECONDS.*"idleTimeoutSec"/)
    expect(ms).toBeGreaterThanOrEqual(950)
    expect(ms).toBeLessThan(3000)
  })

  it('an endless stream: stopped at the answer cap with a clear, non-retryable error', async () => {
    const { error, ms, outcome } = await failure(protocol, 'endless', { maxOutputTokens: 16 })
    expect(error.kind).toBe('too-long')
    expect(error.retryable).toBe(false)
    expect(error.message).toMatch(/passed the length cap.*16 tokens/)
    expect(error.hint).toMatch(/--max-output-tokens N.*"maxOutputTokens"/)
    expect(outcome.deltas.length).toBeGreaterThan(10)
    expect(ms).toBeLessThan(5000)
  })

  it('sends the cap as the provider spells it', async () => {
    server = await start(protocol, ['answer'])
    await runTurn(provider(protocol, server.url, {}), userRequest())
    await runTurn(provider(protocol, server.url, { maxOutputTokens: 512 }), userRequest())
    const [unset, set] = server.bodies
    if (protocol === 'ollama') {
      // Ollama never rejects it, and its default (-1) never stops a looping model: always sent.
      expect((unset.options as Record<string, unknown>).num_predict).toBe(32768)
      expect((set.options as Record<string, unknown>).num_predict).toBe(512)
    } else {
      const key = protocol === 'openai' ? 'max_output_tokens' : 'max_tokens'
      expect(unset[key]).toBeUndefined()
      expect(set[key]).toBe(512)
    }
  })

  it('a timeout goes through the retry policy: the second attempt answers', async () => {
    server = await start(protocol, ['silent', 'answer'])
    const p = provider(protocol, server.url, { firstTokenTimeoutSec: 1 })
    const retries: string[] = []
    const turn = await withRetry(
      () => runTurn(p, userRequest()).then((o) => (o.turn ? o.turn : Promise.reject(o.error))),
      {
        baseDelayMs: 1,
        onRetry: (_n, _d, err) => retries.push(err.code ?? ''),
      },
    )
    expect(turn.text).toBe('la ')
    expect(retries).toEqual(['first-token-timeout'])
  })
})

it('the Stop button still wins over the limits: the abort is the caller’s, not a timeout', async () => {
  server = await start('openai-chat', ['silent'])
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 100)
  const outcome = await runTurn(
    provider('openai-chat', server.url, { firstTokenTimeoutSec: 5 }),
    userRequest(),
    controller.signal,
  )
  expect(outcome.error).not.toBeInstanceOf(ProviderError)
  expect((outcome.error as Error).name).toBe('AbortError')
})
