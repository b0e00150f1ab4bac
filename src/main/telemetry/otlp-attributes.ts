import type { EventOf, ProviderId, Usage } from '../../shared/protocol'

/** A span as the session mapping (otlp-spans.ts) produces it, before either sink encodes it. */
export type AttributeValue = string | number | boolean | string[]
export type Attributes = Record<string, AttributeValue>

export interface TraceSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: 'internal' | 'client'
  startMs: number
  endMs: number
  attributes: Attributes
  events: { name: string; timeMs: number; attributes: Attributes }[]
  links: { traceId: string; spanId: string; attributes: Attributes }[]
  status: { code: 'unset' | 'error'; message?: string }
}

export interface SpanMappingOptions {
  /** Prompts, model answers, tool arguments and results (the GenAI opt-in content attributes). */
  includeContent: boolean
}

/** The GenAI provider name: a Chat-Completions server speaks OpenAI's API (server.address says which). */
export function providerName(provider: ProviderId): string {
  return provider === 'ollama' ? 'ollama' : 'openai'
}

export function serverAttributes(baseUrl: string | undefined): Attributes {
  if (!baseUrl) return {}
  try {
    const url = new URL(baseUrl)
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
    return { 'server.address': url.hostname, 'server.port': port }
  } catch {
    return {}
  }
}

export function usageAttributes(usage: Usage): Attributes {
  return { 'gen_ai.usage.input_tokens': usage.inputTokens, 'gen_ai.usage.output_tokens': usage.outputTokens }
}

type MarkerEvent = EventOf<
  | 'session.configured'
  | 'toolcall.unparsed'
  | 'checkpoint.created'
  | 'checkpoint.restored'
  | 'session.forked'
  | 'context.compacted'
  | 'review.finding'
  | 'verify.finished'
>

/**
 * Events that are moments rather than work, as span events (otlp-spans.ts puts them on
 * the running turn, or on the session between turns). Paths and counts only: a
 * finding's message or a verify failure's output is the project's text.
 */
export function markerFor(e: MarkerEvent): { name: string; attributes: Attributes } {
  switch (e.type) {
    case 'session.configured':
      return {
        name: 'stepwise.session.configured',
        attributes: {
          ...(e.model ? { 'gen_ai.request.model': e.model } : {}),
          ...(e.approvalPolicy ? { 'stepwise.approval_policy': e.approvalPolicy } : {}),
        },
      }
    case 'toolcall.unparsed':
      return {
        name: 'stepwise.toolcall.unparsed',
        attributes: {
          'stepwise.toolcall.family': e.family,
          'stepwise.toolcall.repair_asked': e.repair !== undefined,
        },
      }
    case 'checkpoint.created':
      return {
        name: 'stepwise.checkpoint',
        attributes: { 'stepwise.snapshot.id': e.snapshotId, 'stepwise.paths': e.paths },
      }
    case 'checkpoint.restored':
      return {
        name: 'stepwise.checkpoint.restored',
        attributes: {
          'stepwise.restore.kind': e.kind,
          'stepwise.snapshot.id': e.snapshotId,
          'stepwise.paths': e.paths,
        },
      }
    case 'session.forked':
      return {
        name: 'stepwise.session.forked',
        attributes: { 'stepwise.fork.child': e.childSessionId, 'stepwise.fork.at_seq': e.atSeq },
      }
    case 'context.compacted':
      return {
        name: 'stepwise.context.compacted',
        attributes: {
          'stepwise.context.before_tokens': e.beforeTokens,
          'stepwise.context.after_tokens': e.afterTokens,
        },
      }
    case 'review.finding':
      return {
        name: 'stepwise.review.finding',
        attributes: {
          'stepwise.finding.severity': e.finding.severity,
          'stepwise.finding.category': e.finding.category,
          'stepwise.finding.file': e.finding.file,
        },
      }
    case 'verify.finished':
      return {
        name: 'stepwise.verify',
        attributes: {
          'stepwise.verify.round': e.round,
          'stepwise.verify.passed': e.passed,
          'stepwise.verify.failures': e.failures.length,
        },
      }
  }
}
