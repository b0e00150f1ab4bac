import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { afterEach, describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../shared/protocol'
import { EVENTS, PROMPT, SECRET, SID } from '../../../test/otlp-session-fixture'
import { startOtlpReceiver, type OtlpReceiver } from '../../../test/otlp-receiver'
import { exportOtlp, stepwiseResource } from './otlp'
import { deferredTraces, liveTraceSettings } from './live'
import type { LiveTraces } from './live-traces'
import { createLiveTraces } from './live-export'

const receivers: OtlpReceiver[] = []
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()))
})

async function receiver(opts?: { hang?: boolean }): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver(opts)
  receivers.push(r)
  return r
}

/** Live traces sent by the official OTLP/HTTP exporter to `to`. */
function live(to: OtlpReceiver, includeContent = false) {
  return createLiveTraces({
    exporter: new OTLPTraceExporter({ url: `${to.endpoint}/v1/traces` }),
    resource: resourceFromAttributes(stepwiseResource()),
    includeContent,
  })
}

type SpanKey = { spanId: string; name: string; parentSpanId?: string; startTimeUnixNano: string }
/** What must match between a sent span and the file export's: ids, name, parent and start. */
const spanKey = (s: SpanKey) => `${s.spanId} ${s.name} ${s.parentSpanId ?? '-'} ${s.startTimeUnixNano}`

const FIRST_TURN_END = EVENTS.findIndex((e) => e.type === 'session.finished') + 1

describe('when live traces are on', () => {
  it('is off unless an OTLP endpoint is set, and off again when the SDK or the traces exporter is disabled', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }
    expect(liveTraceSettings({})).toEqual({ enabled: false, includeContent: false })
    expect(liveTraceSettings(on)).toEqual({ enabled: true, includeContent: false })
    expect(liveTraceSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c/v1/traces' }).enabled).toBe(true)
    expect(liveTraceSettings({ ...on, OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false)
    expect(liveTraceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }).enabled).toBe(false)
    expect(liveTraceSettings({ ...on, OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false)
    expect(liveTraceSettings({ ...on, OTEL_TRACES_EXPORTER: 'console,otlp' }).enabled).toBe(true)
    expect(liveTraceSettings({ ...on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'True' })).toEqual({
      enabled: true,
      includeContent: true,
    })
  })
})

describe('live traces through the official exporter', () => {
  it('sends each turn when flushed and the session span at shutdown: the same spans as the file export', async () => {
    const to = await receiver()
    const traces = live(to)
    for (const e of EVENTS.slice(0, FIRST_TURN_END)) traces.observe(e)
    expect(await traces.flush(10_000)).toBe(true)
    const afterTurn = to.spans().map((s) => s.span.name)
    expect(afterTurn).toContain('turn 1')
    expect(afterTurn).not.toContain('invoke_agent stepwise')
    for (const e of EVENTS.slice(FIRST_TURN_END)) traces.observe(e)
    expect(await traces.shutdown(10_000)).toBe(true)

    const received = to.spans()
    expect(to.requests.every((r) => r.headers['content-type'] === 'application/json')).toBe(true)
    expect(received.every((s) => s.resource['service.name'] === 'stepwise')).toBe(true)
    const file = JSON.parse(exportOtlp(SID, EVENTS)).resourceSpans[0].scopeSpans[0].spans as SpanKey[]
    expect(received.map((s) => spanKey(s.span)).sort()).toEqual(file.map(spanKey).sort())
    // The session span ends at shutdown, not at the last event: the process lived on after it.
    const root = received.find((s) => !s.span.parentSpanId)!.span
    expect(BigInt(root.endTimeUnixNano)).toBeGreaterThan(
      BigInt(file.find((s) => !s.parentSpanId)!.startTimeUnixNano),
    )
    const bodies = to.requests.map((r) => r.body).join('\n')
    for (const text of [SECRET, PROMPT]) expect(bodies).not.toContain(text)
  })

  it('sends prompts and tool results only when the user opted in', async () => {
    const to = await receiver()
    const traces = live(to, true)
    for (const e of EVENTS) traces.observe(e)
    expect(await traces.shutdown(10_000)).toBe(true)
    const bodies = to.requests.map((r) => r.body).join('\n')
    expect(bodies).toContain('gen_ai.input.messages')
    expect(bodies).toContain('Rename the token constant')
  })

  it('continues a resumed session without sending its earlier turns again', async () => {
    const to = await receiver()
    const traces = live(to)
    traces.resume(SID, EVENTS.slice(0, FIRST_TURN_END))
    for (const e of EVENTS.slice(FIRST_TURN_END)) traces.observe(e)
    expect(await traces.shutdown(10_000)).toBe(true)
    const names = to.spans().map((s) => s.span.name)
    expect(names.sort()).toEqual(['chat qwen', 'invoke_agent stepwise', 'turn 2'])
  })

  it('catches up on events emitted outside a run, once, and never maps an event twice', async () => {
    const to = await receiver()
    const traces = live(to)
    const firstTurn = EVENTS.slice(0, FIRST_TURN_END)
    for (const e of firstTurn) traces.observe(e)
    // Between turns the host recorded an undo without the run seeing it.
    const undo: StepwiseEvent = {
      type: 'checkpoint.restored',
      kind: 'undo',
      snapshotId: 1,
      savedSnapshotId: 3,
      paths: ['a.ts'],
      sessionId: SID,
      seq: FIRST_TURN_END,
      ts: EVENTS[FIRST_TURN_END - 1].ts + 1,
    }
    traces.resume(SID, [...firstTurn, undo])
    for (const e of firstTurn) traces.observe(e)
    expect(await traces.shutdown(10_000)).toBe(true)
    const spans = to.spans().map((s) => s.span)
    expect(spans.map((s) => s.name).filter((n) => n === 'turn 1')).toEqual(['turn 1'])
    const root = spans.find((s) => !s.parentSpanId)!
    expect(root.events.map((e) => e.name)).toEqual(['stepwise.checkpoint.restored'])
  })

  it('gives up waiting on a collector that never answers, and says so', async () => {
    const to = await receiver({ hang: true })
    const traces = live(to)
    for (const e of EVENTS) traces.observe(e)
    expect(await traces.shutdown(300)).toBe(false)
    expect(to.requests.length).toBeGreaterThan(0)
  })
})

describe('while the SDK side is loading', () => {
  /** A load the test finishes (or fails) when it chooses. */
  function pendingLoad() {
    let finish!: (traces: LiveTraces) => void
    let fail!: (err: Error) => void
    const loading = new Promise<LiveTraces>((resolve, reject) => {
      finish = resolve
      fail = reject
    })
    return { loading, finish, fail }
  }

  it('keeps what the session emitted and sends it, in order, once loaded: the same spans as the file export', async () => {
    const to = await receiver()
    const load = pendingLoad()
    const traces = deferredTraces(load.loading)
    for (const e of EVENTS.slice(0, FIRST_TURN_END)) traces.observe(e)
    const flushed = traces.flush(10_000)
    load.finish(live(to))
    expect(await flushed).toBe(true)
    expect(to.spans().map((s) => s.span.name)).toContain('turn 1')
    for (const e of EVENTS.slice(FIRST_TURN_END)) traces.observe(e)
    expect(await traces.shutdown(10_000)).toBe(true)
    const file = JSON.parse(exportOtlp(SID, EVENTS)).resourceSpans[0].scopeSpans[0].spans as SpanKey[]
    expect(
      to
        .spans()
        .map((s) => spanKey(s.span))
        .sort(),
    ).toEqual(file.map(spanKey).sort())
  })

  it('counts the load in the time flush and shutdown may take', async () => {
    const traces = deferredTraces(pendingLoad().loading)
    traces.observe(EVENTS[0])
    expect(await traces.flush(50)).toBe(false)
    expect(await traces.shutdown(50)).toBe(false)
  })

  it('sends nothing and answers false when the SDK cannot load, with one warning and no crash', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    try {
      const load = pendingLoad()
      const traces = deferredTraces(load.loading)
      traces.observe(EVENTS[0])
      load.fail(new Error('Cannot find module @opentelemetry/sdk-trace'))
      expect(await traces.flush(1000)).toBe(false)
      traces.observe(EVENTS[1])
      expect(await traces.shutdown(1000)).toBe(false)
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings).toEqual([
        'Live traces are off: the OpenTelemetry exporter did not load (Cannot find module @opentelemetry/sdk-trace).',
      ])
    } finally {
      process.off('warning', onWarning)
    }
  })
})
