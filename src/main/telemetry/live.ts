import type { InstrumentationScope } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources'
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace'
import type { StepwiseEvent } from '../../shared/protocol'
import { INSTRUMENTATION_SCOPE, stepwiseResource } from './otlp'
import { createSpanMapper, type SpanMapper } from './otlp-spans'
import { toReadableSpan } from './readable-span'

/**
 * Live traces (docs/traces.md): while sessions run, their spans go to an OTLP/HTTP
 * collector through the official exporter, from the same mapping as
 * `sessions export --format otlp`. Off unless the user sets the standard
 * OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT; the exporter itself reads the other OTEL_*
 * variables (headers, timeout, compression, certificates).
 */

export interface LiveTraceSettings {
  enabled: boolean
  /** Prompts, answers, tool arguments and results: only when the user opted in. */
  includeContent: boolean
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true'
}

function isUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol)
  } catch {
    return false
  }
}

export function liveTraceSettings(env: NodeJS.ProcessEnv): LiveTraceSettings {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || '').trim()
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((s) => s.trim().toLowerCase())
  // An endpoint that is no URL would send to the exporter's default (localhost) instead: off.
  const enabled = isUrl(endpoint) && !isTrue(env.OTEL_SDK_DISABLED) && exporters.includes('otlp')
  // The variable other GenAI instrumentations read for the same opt-in.
  return { enabled, includeContent: isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT) }
}

export interface LiveTraces {
  /** One emitted event of any session. */
  observe(event: StepwiseEvent): void
  /**
   * A session continued (a chat's next message, perhaps after a restart): its stored
   * events the mapping has not seen (all of them in a new process; those the host
   * emitted outside a run, such as an undo, in this one) bring its state up to date,
   * so turn numbers and ids carry on; nothing already ended is sent again.
   */
  resume(sessionId: string, stored: StepwiseEvent[]): void
  /** Sends what has ended; resolves false if that took longer than `timeoutMs`. */
  flush(timeoutMs: number): Promise<boolean>
  /** Ends every session span still open, sends them, stops; false if it ran out of time. */
  shutdown(timeoutMs: number): Promise<boolean>
}

function within(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    timer.unref()
    promise.then(
      () => {
        clearTimeout(timer)
        resolve(true)
      },
      () => {
        clearTimeout(timer)
        resolve(false)
      },
    )
  })
}

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

let shared: LiveTraces | null | undefined

/** The process's live traces, set up from the environment on first use; undefined when off. */
export function liveTraces(env: NodeJS.ProcessEnv = process.env): LiveTraces | undefined {
  if (shared === undefined) {
    const settings = liveTraceSettings(env)
    shared = settings.enabled
      ? createLiveTraces({
          exporter: new OTLPTraceExporter(),
          // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults, as the SDKs do.
          resource: resourceFromAttributes(stepwiseResource()).merge(
            detectResources({ detectors: [envDetector] }),
          ),
          includeContent: settings.includeContent,
        })
      : null
  }
  return shared ?? undefined
}

/** How long ending a process may wait for the collector: a slow one must not hold the user's shell. */
export const EXIT_FLUSH_MS = 1500

/** Sends what is left before the process ends; false when the collector did not answer in time. */
export async function shutdownLiveTraces(timeoutMs = EXIT_FLUSH_MS): Promise<boolean> {
  if (!shared) return true
  return shared.shutdown(timeoutMs)
}
