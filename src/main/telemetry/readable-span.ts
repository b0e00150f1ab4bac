import { SpanKind, SpanStatusCode, TraceFlags, type HrTime } from '@opentelemetry/api'
import type { InstrumentationScope } from '@opentelemetry/core'
import type { Resource } from '@opentelemetry/resources'
import type { ReadableSpan } from '@opentelemetry/sdk-trace'
import type { TraceSpan } from './otlp-spans'

/**
 * A finished span of the session mapping (otlp-spans.ts) in the SDK's shape,
 * so the official processors and exporters send it. Spans are built from stored
 * events after the fact, with ids derived from the session, which the SDK's tracer
 * (random ids, "now" clocks) cannot do; its export path takes them as they are.
 */

export function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000)
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)]
}

const SAMPLED = { traceFlags: TraceFlags.SAMPLED, isRemote: false }

export function toReadableSpan(
  span: TraceSpan,
  resource: Resource,
  instrumentationScope: InstrumentationScope,
): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, ...SAMPLED }
  return {
    name: span.name,
    kind: span.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: span.parentSpanId
      ? { traceId: span.traceId, spanId: span.parentSpanId, ...SAMPLED }
      : undefined,
    startTime: hrTime(span.startMs),
    endTime: hrTime(span.endMs),
    duration: hrTime(span.endMs - span.startMs),
    status:
      span.status.code === 'error'
        ? { code: SpanStatusCode.ERROR, message: span.status.message }
        : { code: SpanStatusCode.UNSET },
    attributes: span.attributes,
    links: span.links.map((l) => ({
      context: { traceId: l.traceId, spanId: l.spanId, ...SAMPLED },
      attributes: l.attributes,
    })),
    events: span.events.map((e) => ({ name: e.name, time: hrTime(e.timeMs), attributes: e.attributes })),
    ended: true,
    resource,
    instrumentationScope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}
