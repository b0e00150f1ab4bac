import { errorMessage } from '../../shared/errors'
import { within, type LiveTraces } from './live-traces'

/**
 * Live traces (docs/traces.md): while sessions run, their spans go to an OTLP/HTTP
 * collector through the official exporter, from the same mapping as
 * `sessions export --format otlp`. Off unless the user sets the standard
 * OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT; the exporter itself reads the other OTEL_*
 * variables (headers, timeout, compression, certificates).
 *
 * This file is what every process loads: the settings, and a stand-in that queues events
 * while the SDK's side (live-export.ts, ~250 modules) loads, only when traces are on.
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

/**
 * Live traces whose SDK side (live-export.ts) is still loading: what the sessions emit meanwhile
 * waits, in order, and goes through once it has loaded; flush and shutdown wait for it within
 * their time. If it cannot load, nothing is sent and both answer false.
 */
export function deferredTraces(loading: Promise<LiveTraces>): LiveTraces {
  loading.catch((err: unknown) =>
    process.emitWarning(
      `Live traces are off: the OpenTelemetry exporter did not load (${errorMessage(err)}).`,
    ),
  )
  // Callbacks on one promise run in the order they were added: events keep theirs.
  const whenLoaded = (call: (traces: LiveTraces) => void) => void loading.then(call, () => undefined)
  return {
    observe: (event) => whenLoaded((traces) => traces.observe(event)),
    resume: (sessionId, stored) => whenLoaded((traces) => traces.resume(sessionId, stored)),
    flush: (timeoutMs) =>
      within(
        loading.then((traces) => traces.flush(timeoutMs)),
        timeoutMs,
      ),
    shutdown: (timeoutMs) =>
      within(
        loading.then((traces) => traces.shutdown(timeoutMs)),
        timeoutMs,
      ),
  }
}

let shared: LiveTraces | null | undefined

/**
 * The process's live traces, set up from the environment on first use; undefined when off.
 * The SDK loads in the background the first time they are on.
 */
export function liveTraces(env: NodeJS.ProcessEnv = process.env): LiveTraces | undefined {
  if (shared === undefined) {
    const settings = liveTraceSettings(env)
    shared = settings.enabled
      ? deferredTraces(
          import('./live-export').then((sdk) => sdk.liveTracesFromEnvironment(settings.includeContent)),
        )
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
