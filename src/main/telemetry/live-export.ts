import type { InstrumentationScope } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources'
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace'
import { within, type LiveTraces } from './live-traces'
import { INSTRUMENTATION_SCOPE, stepwiseResource } from './otlp'
import { createSpanMapper, type SpanMapper } from './otlp-spans'
import { toReadableSpan } from './readable-span'

/*
 * The OpenTelemetry SDK's side of live traces (live.ts): loaded only once the environment
 * turns them on, so a process that does not send traces never loads the SDK's ~250 modules.
 */

export function createLiveTraces(opts: {
  exporter: SpanExporter
  resource: Resource
  includeContent: boolean
  scope?: InstrumentationScope
}): LiveTraces {
  // Batches, so a turn's spans go out in a few requests; flushed at every turn's end.
  const processor = new BatchSpanProcessor({ exporter: opts.exporter })
  const scope = opts.scope ?? INSTRUMENTATION_SCOPE
  const mappers = new Map<string, SpanMapper>()
  /** The last `seq` each session's mapping has taken: events are never mapped twice. */
  const seen = new Map<string, number>()
  let replaying = false
  let stopped = false
  let shutdown: Promise<boolean> | undefined

  const mapperFor = (sessionId: string): SpanMapper => {
    let mapper = mappers.get(sessionId)
    if (!mapper) {
      mapper = createSpanMapper(sessionId, { includeContent: opts.includeContent }, (span) => {
        if (!replaying) processor.onEnd(toReadableSpan(span, opts.resource, scope))
      })
      mappers.set(sessionId, mapper)
    }
    return mapper
  }

  return {
    observe(event) {
      if (stopped || event.seq <= (seen.get(event.sessionId) ?? -1)) return
      seen.set(event.sessionId, event.seq)
      mapperFor(event.sessionId).push(event)
    },
    resume(sessionId, stored) {
      if (stopped) return
      const mapper = mapperFor(sessionId)
      replaying = true
      try {
        for (const e of stored) {
          if (e.seq <= (seen.get(sessionId) ?? -1)) continue
          seen.set(sessionId, e.seq)
          mapper.push(e)
        }
      } finally {
        replaying = false
      }
    },
    flush(timeoutMs) {
      return within(processor.forceFlush(), timeoutMs)
    },
    shutdown(timeoutMs) {
      // A second call (the service closing, then the CLI's exit) answers as the first did: a
      // collector that never answered must still make the CLI drop its request and exit.
      if (shutdown) return shutdown
      for (const mapper of mappers.values()) mapper.finish(Date.now())
      mappers.clear()
      stopped = true
      shutdown = within(processor.shutdown(), timeoutMs)
      return shutdown
    },
  }
}

/** Live traces to the collector the standard OTEL_* variables name, as the SDKs set them up. */
export function liveTracesFromEnvironment(includeContent: boolean): LiveTraces {
  return createLiveTraces({
    exporter: new OTLPTraceExporter(),
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults, as the SDKs do.
    resource: resourceFromAttributes(stepwiseResource()).merge(detectResources({ detectors: [envDetector] })),
    includeContent,
  })
}
