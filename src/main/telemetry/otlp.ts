import type { StepwiseEvent } from '../../shared/protocol'
import { VERSION } from '../version'
import { sessionSpans, type AttributeValue, type Attributes, type TraceSpan } from './otlp-spans'

/**
 * `sessions export --format otlp`: the session as an OTLP/JSON trace request
 * (`resourceSpans` → `scopeSpans` → `spans`), the body an OTLP/HTTP collector accepts at
 * /v1/traces and what Jaeger, Tempo, Langfuse or Phoenix import. Written the way the
 * official JavaScript serializer writes it (ids as hex, times as nanosecond strings,
 * enums as numbers); a test compares the two on the same spans.
 */

export const INSTRUMENTATION_SCOPE = { name: 'stepwise', version: VERSION }

/** The resource every Stepwise span carries. */
export function stepwiseResource(extra: Attributes = {}): Attributes {
  return { 'service.name': 'stepwise', 'service.version': VERSION, ...extra }
}

type OtlpValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: number }
  | { doubleValue: number }
  | { arrayValue: { values: OtlpValue[] } }

function otlpValue(value: AttributeValue | string): OtlpValue {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((v) => otlpValue(v)) } }
  if (typeof value === 'boolean') return { boolValue: value }
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: value } : { doubleValue: value }
  return { stringValue: value }
}

function otlpAttributes(attributes: Attributes): { key: string; value: OtlpValue }[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: otlpValue(value) }))
}

/**
 * Milliseconds (possibly fractional) → a decimal string of nanoseconds. Whole microseconds
 * of an epoch time stay below 2^53, so plain numbers are exact here.
 */
export function unixNanos(ms: number): string {
  return `${Math.round(ms * 1000)}000`
}

/** OTLP's SpanKind numbering (protobuf: INTERNAL = 1, CLIENT = 3). */
const OTLP_KIND = { internal: 1, client: 3 } as const
/** OTLP's status codes: UNSET = 0, ERROR = 2. */
const OTLP_STATUS = { unset: 0, error: 2 } as const
/** W3C "sampled", and "the parent is known not to be remote" (all of a session's spans are local). */
const SPAN_FLAGS = 0x101

function otlpSpan(span: TraceSpan): Record<string, unknown> {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: OTLP_KIND[span.kind],
    startTimeUnixNano: unixNanos(span.startMs),
    endTimeUnixNano: unixNanos(span.endMs),
    attributes: otlpAttributes(span.attributes),
    droppedAttributesCount: 0,
    events: span.events.map((e) => ({
      attributes: otlpAttributes(e.attributes),
      name: e.name,
      timeUnixNano: unixNanos(e.timeMs),
      droppedAttributesCount: 0,
    })),
    droppedEventsCount: 0,
    status: {
      code: OTLP_STATUS[span.status.code],
      ...(span.status.message ? { message: span.status.message } : {}),
    },
    links: span.links.map((l) => ({
      traceId: l.traceId,
      spanId: l.spanId,
      attributes: otlpAttributes(l.attributes),
      droppedAttributesCount: 0,
      flags: 0x101,
    })),
    droppedLinksCount: 0,
    flags: SPAN_FLAGS,
  }
}

/** An OTLP/JSON trace request holding `spans`, under one resource and one scope. */
export function otlpTraceRequest(spans: TraceSpan[], resource: Attributes = stepwiseResource()): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes(resource), droppedAttributesCount: 0 },
        scopeSpans: [{ scope: INSTRUMENTATION_SCOPE, spans: spans.map(otlpSpan) }],
      },
    ],
  }
}

/** Parents before children, then by start time: the order a reader expects in the file. */
function byStart(a: TraceSpan, b: TraceSpan): number {
  return a.startMs - b.startMs || (a.parentSpanId ? 1 : 0) - (b.parentSpanId ? 1 : 0)
}

/** The `otlp` export format: one trace per session, its ids derived from the session id. */
export function exportOtlp(
  sessionId: string,
  events: StepwiseEvent[],
  opts: { includeContent?: boolean } = {},
): string {
  const spans = sessionSpans(sessionId, events, { includeContent: opts.includeContent ?? false }).sort(
    byStart,
  )
  // One line: the file is for collectors and viewers (`jq .` shows it indented), and a
  // long session's trace is written in half the time and size.
  return `${JSON.stringify(otlpTraceRequest(spans))}\n`
}
