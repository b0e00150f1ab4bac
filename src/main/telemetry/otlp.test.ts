import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import * as semconv from '@opentelemetry/semantic-conventions/incubating'
import { describe, expect, it } from 'vitest'
import type { StepwiseEvent } from '../../shared/protocol'
import { EVENTS, PROMPT, SECRET, SID, T0 } from '../../../test/otlp-session-fixture'
import { toReadableSpan } from './readable-span'
import { exportOtlp, INSTRUMENTATION_SCOPE, stepwiseResource, unixNanos } from './otlp'
import { sessionSpans, type TraceSpan } from './otlp-spans'

const attr = (s: TraceSpan, key: string) => s.attributes[key]
const spans = (opts = { includeContent: false }) => sessionSpans(SID, EVENTS, opts)
const named = (list: TraceSpan[], prefix: string) => list.filter((s) => s.name.startsWith(prefix))

describe('session events as GenAI spans', () => {
  it('nests chat and tool spans in turns in the session, each inside its parent in time', () => {
    const list = spans()
    const byId = new Map(list.map((s) => [s.spanId, s]))
    expect(list.map((s) => s.name).sort()).toEqual(
      [
        'invoke_agent stepwise',
        'turn 1',
        'turn 2',
        'chat qwen',
        'chat qwen',
        'chat qwen',
        'chat qwen',
        'execute_tool read_file',
        'execute_tool edit_file',
      ].sort(),
    )
    for (const s of list) {
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/)
      expect(s.endMs).toBeGreaterThanOrEqual(s.startMs)
      if (s.name === 'invoke_agent stepwise') {
        expect(s.parentSpanId).toBeUndefined()
        continue
      }
      const parent = byId.get(s.parentSpanId!)!
      expect(parent).toBeDefined()
      expect(s.startMs).toBeGreaterThanOrEqual(parent.startMs)
      expect(s.endMs).toBeLessThanOrEqual(parent.endMs)
      expect(parent.name.startsWith(s.name.startsWith('turn') ? 'invoke_agent' : 'turn')).toBe(true)
    }
    expect(new Set(list.map((s) => s.spanId)).size).toBe(list.length)
  })

  it('puts the GenAI attributes on each kind of span', () => {
    const list = spans()
    const [agent] = named(list, 'invoke_agent')
    expect(agent.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'stepwise',
      'gen_ai.conversation.id': SID,
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'qwen',
      'gen_ai.usage.input_tokens': 580,
      'gen_ai.usage.output_tokens': 38,
    })
    const first = named(list, 'chat').find((s) => attr(s, 'stepwise.step') === 1)!
    expect(first.kind).toBe('client')
    expect(first.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'stepwise.provider': 'openai-chat',
      'gen_ai.request.model': 'qwen',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 10,
      'gen_ai.response.finish_reasons': ['tool_call'],
      'server.address': '127.0.0.1',
      'server.port': 8080,
    })
    expect([first.startMs - T0, first.endMs - T0]).toEqual([10, 100])
    const last = named(list, 'chat').find((s) => attr(s, 'stepwise.step') === 3)!
    expect(attr(last, 'gen_ai.response.finish_reasons')).toEqual(['stop'])
    const [read] = named(list, 'execute_tool read_file')
    expect(read.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'stepwise.tool.path': 'a.ts',
    })
    expect(read.status).toEqual({ code: 'unset' })
  })

  it('records the approval wait, the rejection and the failed model call as errors and events', () => {
    const list = spans()
    const [editSpan] = named(list, 'execute_tool edit_file')
    expect(editSpan.status.code).toBe('error')
    expect(editSpan.attributes).toMatchObject({
      'error.type': 'rejected',
      'stepwise.approval.decision': 'reject',
      'stepwise.approval.by': 'user',
      'stepwise.approval.wait_ms': 2000,
    })
    expect(editSpan.events.map((e) => e.name)).toEqual([
      'stepwise.approval.requested',
      'stepwise.approval.resolved',
    ])
    const failed = named(list, 'chat').find((s) => s.status.code === 'error')!
    expect(failed.attributes['error.type']).toBe('model-unreachable')
    expect(failed.events.map((e) => e.name)).toEqual(['stepwise.model.retry'])
    expect([failed.startMs - T0, failed.endMs - T0]).toEqual([5000, 6000])
    const turn2 = list.find((s) => s.name === 'turn 2')!
    expect(turn2.status.code).toBe('error')
    expect(turn2.attributes['stepwise.finish_reason']).toBe('error')
    const turn1 = list.find((s) => s.name === 'turn 1')!
    expect(turn1.events.map((e) => e.name)).toEqual(['stepwise.checkpoint'])
  })

  it('leaves prompts, answers and file contents out unless asked, and puts them in the GenAI attributes when asked', () => {
    const plain = exportOtlp(SID, EVENTS)
    for (const text of [SECRET, 'file-body-7f3a', PROMPT, 'Left it as is', 'not like that'])
      expect(plain).not.toContain(text)
    const list = spans({ includeContent: true })
    const first = named(list, 'chat').find((s) => attr(s, 'stepwise.step') === 1)!
    expect(JSON.parse(String(attr(first, 'gen_ai.input.messages')))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: PROMPT }] },
    ])
    expect(JSON.parse(String(attr(first, 'gen_ai.output.messages')))).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Reading' },
          { type: 'tool_call', id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } },
        ],
        finish_reason: 'tool_call',
      },
    ])
    const second = named(list, 'chat').find((s) => attr(s, 'stepwise.step') === 2)!
    expect(JSON.parse(String(attr(second, 'gen_ai.input.messages')))).toEqual([
      {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: 'c1', response: { ok: true, content: SECRET } }],
      },
    ])
    const [read] = named(list, 'execute_tool read_file')
    expect(JSON.parse(String(attr(read, 'gen_ai.tool.call.result')))).toEqual({ ok: true, content: SECRET })
  })

  it('names every standard attribute as the OpenTelemetry semantic conventions package does', () => {
    const known = new Set(
      Object.entries(semconv)
        .filter(([name]) => name.startsWith('ATTR_'))
        .map(([, value]) => value as string),
    )
    const keys = new Set(
      spans({ includeContent: true }).flatMap((s) => [
        ...Object.keys(s.attributes),
        ...s.events.flatMap((e) => Object.keys(e.attributes)),
      ]),
    )
    const standard = [...keys].filter((k) => !k.startsWith('stepwise.')).sort()
    expect(standard.filter((k) => !known.has(k))).toEqual([])
    expect(standard).toContain(semconv.ATTR_GEN_AI_TOOL_CALL_ID)
    expect(standard).toContain(semconv.ATTR_GEN_AI_OUTPUT_MESSAGES)
    const operations = new Set(spans().map((s) => s.attributes[semconv.ATTR_GEN_AI_OPERATION_NAME]))
    expect([...operations].filter(Boolean).sort()).toEqual(
      [
        semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
        semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      ].sort(),
    )
  })

  it('derives the same ids from the same session, and other ids from another', () => {
    expect(exportOtlp(SID, EVENTS)).toBe(exportOtlp(SID, EVENTS))
    const other = sessionSpans(
      'sess-2',
      EVENTS.map((e) => ({ ...e, sessionId: 'sess-2' })),
      { includeContent: false },
    )
    const mine = spans()
    expect(other[0].traceId).not.toBe(mine[0].traceId)
    const mineIds = new Set(mine.map((s) => s.spanId))
    expect(other.filter((s) => mineIds.has(s.spanId))).toEqual([])
  })

  it('links a fork to the session it came from', () => {
    const forked = sessionSpans(
      'child',
      [{ ...EVENTS[0], sessionId: 'child', parent: { sessionId: SID, seq: 6 } } as StepwiseEvent],
      { includeContent: false },
    )
    expect(forked[0].links).toEqual([
      {
        traceId: spans()[0].traceId,
        spanId: named(spans(), 'invoke_agent')[0].spanId,
        attributes: { 'stepwise.link': 'forked-from', 'stepwise.seq': 6 },
      },
    ])
  })
})

describe('the OTLP/JSON file', () => {
  it('writes times as exact nanoseconds, fractions of a millisecond included', () => {
    expect(unixNanos(T0)).toBe('1700000000000000000')
    expect(unixNanos(T0 + 90.125)).toBe('1700000000090125000')
  })

  it('is what the official OpenTelemetry serializer writes for the same spans', () => {
    // A model call timed to a fraction of a millisecond, as a monotonic clock measures it.
    const events = EVENTS.map((e) =>
      e.seq === 3 && e.type === 'assistant.message' ? { ...e, durationMs: 90.125 } : e,
    )
    const file = JSON.parse(exportOtlp(SID, events, { includeContent: true }))
    const ours = file.resourceSpans[0].scopeSpans[0].spans as { spanId: string }[]
    // The same spans, in the file's order, through the SDK's own JSON encoding.
    const order = new Map(ours.map((s, i) => [s.spanId, i]))
    const resource = resourceFromAttributes(stepwiseResource())
    const sdkSpans = sessionSpans(SID, events, { includeContent: true })
      .sort((a, b) => order.get(a.spanId)! - order.get(b.spanId)!)
      .map((s) => toReadableSpan(s, resource, INSTRUMENTATION_SCOPE))
    const official = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(sdkSpans)!).toString('utf8'))
    expect(file).toEqual(official)
    expect(JSON.stringify(file)).toContain('"startTimeUnixNano":"1700000000009875000"')
    expect(file.resourceSpans[0].resource.attributes).toEqual([
      { key: 'service.name', value: { stringValue: 'stepwise' } },
      { key: 'service.version', value: { stringValue: INSTRUMENTATION_SCOPE.version } },
    ])
  })
})
