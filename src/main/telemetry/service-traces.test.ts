/**
 * Live traces from the app's path: the core service (as Electron and `stepwise serve` run
 * it) on a real store and the fake model, with OTEL_EXPORTER_OTLP_ENDPOINT set for this
 * file's process. A chat of two turns with an approval sends each turn when it ends and
 * the session span when the service closes (the app quitting): the spans of the file export.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../../../test/fake-model-server'
import { startOtlpReceiver, type OtlpReceiver, type OtlpSpanJson } from '../../../test/otlp-receiver'
import { answer, runTurn, startService } from '../../../test/service-harness'
import { exportOtlp } from './otlp'
import { openStore } from '../store/store'

let collector: OtlpReceiver
let model: FakeModelServer
let repo: string
let dataDir: string
const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT

beforeAll(async () => {
  collector = await startOtlpReceiver()
  // Read once, when the first session starts: this file's worker has its own module state.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.endpoint
  model = await startFakeModelServer({
    models: ['coder:1b'],
    turns: [
      { toolCalls: [{ name: 'write_file', arguments: { path: 'new.txt', content: 'SECRET-BODY-42\n' } }] },
      { text: 'Written.' },
      { text: 'Nothing else to do.' },
    ],
  })
  repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-traces-repo-')))
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-traces-data-'))
})

afterAll(async () => {
  if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
  else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved
  await model.close()
  await collector.close()
  fs.rmSync(repo, { recursive: true, force: true })
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const names = (): string[] => collector.spans().map((s) => s.span.name)
const identity = (s: OtlpSpanJson) => `${s.spanId} ${s.parentSpanId ?? '-'} ${s.name} ${s.startTimeUnixNano}`

it('sends a chat turn by turn, the user-answered approval on its tool span, and the session when the app quits', async () => {
  const store = openStore(dataDir)
  const service = startService({ store, dataDir, baseUrl: model.url, approvalPolicy: 'ask' })
  try {
    const { sessionId } = await answer<{ sessionId: string }>(service, 'session/create', { repo })
    const turn = answer(service, 'turn/start', { sessionId, text: 'Write new.txt' })
    const end = Date.now() + 10_000
    let request = store.listEvents(sessionId).find((e) => e.type === 'approval.requested')
    while (!request && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 10))
      request = store.listEvents(sessionId).find((e) => e.type === 'approval.requested')
    }
    if (request?.type !== 'approval.requested') throw new Error('no approval was asked for')
    await answer(service, 'approval/resolve', { sessionId, callId: request.callId, decision: 'accept' })
    await turn
    while (service.sessions.isRunning(sessionId)) await new Promise((r) => setTimeout(r, 10))
    // The first turn went out when it ended, before the app quit.
    expect(names()).toContain('turn 1')
    expect(names()).not.toContain('invoke_agent stepwise')

    await runTurn(service, sessionId, 'Anything else?')
    await service.close()

    const spans = collector.spans().map((s) => s.span)
    expect(
      names()
        .filter((n) => n.startsWith('turn'))
        .sort(),
    ).toEqual(['turn 1', 'turn 2'])
    const write = spans.find((s) => s.name === 'execute_tool write_file')!
    const attrs = Object.fromEntries(write.attributes.map((a) => [a.key, Object.values(a.value)[0]]))
    expect(attrs).toMatchObject({ 'stepwise.approval.decision': 'accept', 'stepwise.approval.by': 'user' })
    expect(write.events.map((e) => e.name)).toEqual([
      'stepwise.approval.requested',
      'stepwise.approval.resolved',
    ])
    expect(collector.requests.map((r) => r.body).join('\n')).not.toContain('SECRET-BODY-42')

    const file = JSON.parse(exportOtlp(sessionId, store.listEvents(sessionId))).resourceSpans[0].scopeSpans[0]
      .spans as OtlpSpanJson[]
    expect(spans.map(identity).sort()).toEqual(file.map(identity).sort())
  } finally {
    await service.close()
    store.close()
  }
}, 30_000)
