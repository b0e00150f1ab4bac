/**
 * Traces from a real session (docs/traces.md): `stepwise edit` against the fake model with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a test collector (the official OTLP/HTTP
 * exporter sends, our receiver only stores), then `sessions export --format otlp` of the
 * same session: the same spans, in the GenAI conventions, without the project's text.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openStore } from '../src/main/store/store'
import { buildCli, committedRepo, editArgs, runCli as runBuiltCli } from './cli-harness'
import { startFakeModelServer, type FakeModelServer } from './fake-model-server'
import { startOtlpReceiver, type OtlpReceiver, type OtlpSpanJson } from './otlp-receiver'

let CLI = ''
const runCli = (args: string[], env?: Record<string, string>) => runBuiltCli(CLI, args, { env })

const FILE_TEXT = 'export const marker = "FILE-CONTENT-c0ffee"\n'
const TASK = 'Rename the marker, TASK-PROMPT-9b1'

let repo: string
let dataDir: string
let model: FakeModelServer
const receivers: OtlpReceiver[] = []

beforeAll(() => {
  CLI = buildCli('stepwise-otlp-e2e')
}, 180_000)

beforeEach(async () => {
  repo = committedRepo('stepwise-otlp-repo-', { 'marker.ts': FILE_TEXT })
  dataDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-otlp-data-')))
  model = await startFakeModelServer({
    turns: [
      {
        toolCalls: [{ name: 'read_file', arguments: { path: 'marker.ts' } }],
        usage: { inputTokens: 300, outputTokens: 12 },
      },
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: { path: 'marker.ts', old_string: 'FILE-CONTENT-c0ffee', new_string: 'NEW-BODY-77' },
          },
        ],
      },
      { text: 'Renamed it.' },
    ],
  })
})

afterEach(async () => {
  await model.close()
  await Promise.all(receivers.splice(0).map((r) => r.close()))
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

async function receiver(opts?: { hang?: boolean }): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver(opts)
  receivers.push(r)
  return r
}

const edit = (env: Record<string, string>) =>
  runCli([...editArgs({ repo, dataDir, baseUrl: model.v1Url }, TASK), '--approve', 'auto-edit'], env)

function onlySession(): string {
  const store = openStore(dataDir)
  try {
    const [session] = store.listSessions()
    return session.id
  } finally {
    store.close()
  }
}

const attrs = (span: OtlpSpanJson): Record<string, unknown> =>
  Object.fromEntries(span.attributes.map((a) => [a.key, Object.values(a.value)[0]]))

/** What makes a span the same span in two exports. */
const identity = (s: OtlpSpanJson) => `${s.spanId} ${s.parentSpanId ?? '-'} ${s.name} ${s.startTimeUnixNano}`

const CONTENT = ['FILE-CONTENT-c0ffee', 'NEW-BODY-77', 'TASK-PROMPT-9b1', 'Renamed it.']

describe('live traces from `stepwise edit`', () => {
  it('arrive at the collector from OTEL_EXPORTER_OTLP_ENDPOINT, with its headers, in the GenAI conventions, without file content', async () => {
    const collector = await receiver()
    const run = await edit({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=stepwise-tests',
    })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(fs.readFileSync(path.join(repo, 'marker.ts'), 'utf8')).toContain('NEW-BODY-77')

    expect(collector.requests.length).toBeGreaterThan(0)
    expect(collector.requests.every((r) => r.path === '/v1/traces')).toBe(true)
    expect(collector.requests.every((r) => r.headers['x-team'] === 'stepwise-tests')).toBe(true)
    const bodies = collector.requests.map((r) => r.body).join('\n')
    for (const text of CONTENT) expect(bodies).not.toContain(text)

    const received = collector.spans()
    expect(received.every((s) => s.resource['service.name'] === 'stepwise')).toBe(true)
    const spans = received.map((s) => s.span)
    expect(spans.map((s) => s.name).sort()).toEqual(
      [
        'chat m1',
        'chat m1',
        'chat m1',
        'execute_tool edit_file',
        'execute_tool read_file',
        'invoke_agent stepwise',
        'turn 1',
      ].sort(),
    )
    const firstChat = spans
      .filter((s) => s.name === 'chat m1')
      .sort((a, b) => Number(BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)))[0]
    expect(attrs(firstChat)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'm1',
      'gen_ai.usage.input_tokens': 300,
      'gen_ai.usage.output_tokens': 12,
      'gen_ai.response.finish_reasons': { values: [{ stringValue: 'tool_call' }] },
      'server.address': '127.0.0.1',
    })
    const editSpan = spans.find((s) => s.name === 'execute_tool edit_file')!
    expect(attrs(editSpan)).toMatchObject({
      'gen_ai.tool.name': 'edit_file',
      'gen_ai.tool.type': 'function',
      'stepwise.tool.mutating': true,
      'stepwise.tool.path': 'marker.ts',
    })
    expect(String(attrs(editSpan)['gen_ai.tool.call.id'])).not.toBe('')

    // The file export of the same session holds the same spans: one mapping, two sinks.
    const id = onlySession()
    const out = path.join(dataDir, 'trace.json')
    const exported = await runCli([
      'sessions',
      'export',
      id,
      '--format',
      'otlp',
      '--out',
      out,
      '--data-dir',
      dataDir,
    ])
    expect(exported.code).toBe(0)
    const file = JSON.parse(fs.readFileSync(out, 'utf8'))
    const fileSpans = file.resourceSpans[0].scopeSpans[0].spans as OtlpSpanJson[]
    expect(fileSpans.map(identity).sort()).toEqual(spans.map(identity).sort())
  }, 60_000)

  it('do not hold the shell when the collector never answers', async () => {
    const collector = await receiver({ hang: true })
    const run = await edit({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_TIMEOUT: '120000',
    })
    expect(run.code).toBe(0)
    expect(collector.requests.length).toBeGreaterThan(0)
  }, 60_000)

  it('stay off with OTEL_SDK_DISABLED=true, even with an endpoint', async () => {
    const collector = await receiver()
    const run = await edit({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_SDK_DISABLED: 'true' })
    expect(run.code).toBe(0)
    expect(collector.requests).toEqual([])
  }, 60_000)
})

describe('`sessions export --format otlp`', () => {
  it('writes a well-formed OTLP/JSON trace: hex ids, known parents, children inside their parents, no content unless asked', async () => {
    expect((await edit({})).code).toBe(0)
    const id = onlySession()
    const plain = await runCli(['sessions', 'export', id, '--format', 'otlp', '--data-dir', dataDir])
    expect(plain.code).toBe(0)
    for (const text of CONTENT) expect(plain.stdout).not.toContain(text)
    const doc = JSON.parse(plain.stdout)
    const [resourceSpans] = doc.resourceSpans
    expect(resourceSpans.scopeSpans[0].scope.name).toBe('stepwise')
    const spans = resourceSpans.scopeSpans[0].spans as OtlpSpanJson[]
    const byId = new Map(spans.map((s) => [s.spanId, s]))
    expect(byId.size).toBe(spans.length)
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1)
    for (const s of spans) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/)
      expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano))
      if (!s.parentSpanId) continue
      const parent = byId.get(s.parentSpanId)!
      expect(parent).toBeDefined()
      expect(BigInt(s.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(parent.startTimeUnixNano))
      expect(BigInt(s.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(parent.endTimeUnixNano))
    }
    expect(spans.filter((s) => !s.parentSpanId).map((s) => s.name)).toEqual(['invoke_agent stepwise'])
    const root = spans.find((s) => !s.parentSpanId)!
    expect(attrs(root)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.conversation.id': id,
    })

    // A second export is the same file: the ids come from the session.
    const again = await runCli(['sessions', 'export', id, '--format', 'otlp', '--data-dir', dataDir])
    expect(again.stdout).toBe(plain.stdout)

    const full = await runCli([
      'sessions',
      'export',
      id,
      '--format',
      'otlp',
      '--include-content',
      '--data-dir',
      dataDir,
    ])
    expect(full.code).toBe(0)
    for (const text of CONTENT) expect(full.stdout).toContain(text)
    expect(full.stdout).toContain('gen_ai.output.messages')
  }, 60_000)
})
