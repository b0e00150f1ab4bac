import type { EventOf, ProviderId, StepwiseEvent, Usage } from '../../shared/protocol'
import { spanIdFor, traceIdFor } from './otlp-ids'
import {
  markerFor,
  providerName,
  serverAttributes,
  usageAttributes,
  type Attributes,
  type SpanMappingOptions,
  type TraceSpan,
} from './otlp-attributes'
import { chatInputMessages, chatOutputMessages, toolContent, type PendingInput } from './otlp-content'
import { pushAll } from '../../shared/arrays'

/**
 * Session events → spans in the OpenTelemetry GenAI conventions (docs/traces.md).
 * One mapping for both sinks: `sessions export --format otlp` pushes the stored
 * events through it, the live export pushes each event as it is emitted. A span
 * comes out when it ends; `finish` ends what is still open.
 *
 *   invoke_agent stepwise        the session (gen_ai.conversation.id = session id)
 *     turn N                     one user message (or fork resume) to session.finished
 *       chat {model}             one model call
 *       execute_tool {name}      one tool call, its approval wait as events
 */

export type { AttributeValue, Attributes, SpanMappingOptions, TraceSpan } from './otlp-attributes'

export const AGENT_NAME = 'stepwise'

interface OpenSpan extends TraceSpan {
  usage?: Usage
}

export interface SpanMapper {
  push(event: StepwiseEvent): void
  /** Ends the spans still open (a turn cut off, the session itself) at `endMs` or the last event's time. */
  finish(endMs?: number): void
}

export function createSpanMapper(
  sessionId: string,
  opts: SpanMappingOptions,
  onSpan: (span: TraceSpan) => void,
): SpanMapper {
  const traceId = traceIdFor(sessionId)
  let model = { provider: 'openai' as ProviderId, model: '', baseUrl: undefined as string | undefined }
  let session: OpenSpan | undefined
  let turn: OpenSpan | undefined
  let turns = 0
  let lastTs = 0
  /** When the next model call began: the end of whatever ran before it. */
  let modelReadyAt = 0
  const tools = new Map<string, OpenSpan & { approvalAt?: number }>()
  /** Retries of the model step in progress, attached to its chat span. */
  let retries: TraceSpan['events'] = []
  let input: PendingInput[] = []

  const open = (span: Omit<OpenSpan, 'traceId' | 'events' | 'links' | 'status' | 'endMs'>): OpenSpan => ({
    traceId,
    events: [],
    links: [],
    status: { code: 'unset' },
    endMs: span.startMs,
    ...span,
  })

  const close = (span: OpenSpan, endMs: number): void => {
    const { usage, ...rest } = span
    if (usage) Object.assign(rest.attributes, usageAttributes(usage))
    // A child never outlives its parent in the file: clocks only go forward here.
    onSpan({ ...rest, endMs: Math.max(endMs, rest.startMs) })
  }

  const ensureSession = (ts: number): OpenSpan => {
    session ??= open({
      spanId: spanIdFor(sessionId, 'session'),
      name: `invoke_agent ${AGENT_NAME}`,
      kind: 'internal',
      startMs: ts,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': AGENT_NAME,
        'gen_ai.conversation.id': sessionId,
      },
      usage: { inputTokens: 0, outputTokens: 0 },
    })
    return session
  }

  const ensureTurn = (event: StepwiseEvent): OpenSpan => {
    const parent = ensureSession(event.ts)
    if (turn) return turn
    turns += 1
    modelReadyAt = event.ts
    turn = open({
      spanId: spanIdFor(sessionId, 'turn', event.seq),
      parentSpanId: parent.spanId,
      name: `turn ${turns}`,
      kind: 'internal',
      startMs: event.ts,
      attributes: { 'gen_ai.conversation.id': sessionId, 'stepwise.turn': turns, 'stepwise.seq': event.seq },
      usage: { inputTokens: 0, outputTokens: 0 },
    })
    return turn
  }

  /** Events outside any turn (an undo from the CLI, a fork) belong to the session span. */
  const eventOn = (span: OpenSpan, name: string, ts: number, attributes: Attributes): void => {
    span.events.push({ name, timeMs: ts, attributes })
  }

  const chatSpan = (
    step: number,
    seq: number,
    startMs: number,
    parent: OpenSpan,
    extra: Attributes,
  ): OpenSpan => {
    const span = open({
      spanId: spanIdFor(sessionId, 'chat', seq),
      parentSpanId: parent.spanId,
      name: `chat ${model.model}`,
      kind: 'client',
      startMs: Math.max(startMs, parent.startMs),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': providerName(model.provider),
        'gen_ai.request.model': model.model,
        'gen_ai.conversation.id': sessionId,
        'stepwise.provider': model.provider,
        'stepwise.step': step,
        'stepwise.seq': seq,
        ...serverAttributes(model.baseUrl),
        ...extra,
      },
    })
    pushAll(span.events, retries)
    retries = []
    return span
  }

  const addUsage = (usage: Usage): void => {
    for (const span of [session, turn]) {
      if (!span?.usage) continue
      span.usage.inputTokens += usage.inputTokens
      span.usage.outputTokens += usage.outputTokens
    }
  }

  const onAssistant = (e: EventOf<'assistant.message'>): void => {
    const parent = ensureTurn(e)
    model = { ...model, provider: e.provider, model: e.model }
    const finish = e.toolCalls.length > 0 ? 'tool_call' : 'stop'
    const span = chatSpan(e.step, e.seq, e.ts - e.durationMs, parent, {
      'gen_ai.response.finish_reasons': [finish],
      ...usageAttributes(e.usage),
      ...(e.textToolCalls ? { 'stepwise.text_tool_calls': true } : {}),
      ...(e.context ? { 'stepwise.context.used_tokens': e.context.usedTokens } : {}),
      ...(e.context ? { 'stepwise.context.window_tokens': e.context.windowTokens } : {}),
    })
    if (opts.includeContent) {
      span.attributes['gen_ai.input.messages'] = chatInputMessages(input)
      span.attributes['gen_ai.output.messages'] = chatOutputMessages(e, finish)
    }
    input = []
    addUsage(e.usage)
    close(span, e.ts)
    modelReadyAt = e.ts
  }

  const onToolStarted = (e: EventOf<'tool.started'>): void => {
    const parent = ensureTurn(e)
    const args = e.args as Record<string, unknown> | null
    const path = args && typeof args === 'object' && typeof args.path === 'string' ? args.path : undefined
    const span = open({
      spanId: spanIdFor(sessionId, 'tool', e.seq),
      parentSpanId: parent.spanId,
      name: `execute_tool ${e.name}`,
      kind: 'internal',
      startMs: e.ts,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': e.name,
        'gen_ai.tool.call.id': e.callId,
        'gen_ai.tool.type': 'function',
        'gen_ai.conversation.id': sessionId,
        'stepwise.tool.mutating': e.mutating,
        'stepwise.seq': e.seq,
        // A path names a file; it is not the file's content.
        ...(path !== undefined ? { 'stepwise.tool.path': path } : {}),
      },
    })
    if (opts.includeContent) span.attributes['gen_ai.tool.call.arguments'] = toolContent(e.args)
    tools.set(e.callId, span)
  }

  const onToolFinished = (e: EventOf<'tool.finished'>): void => {
    const span = tools.get(e.callId)
    if (!span) return
    tools.delete(e.callId)
    if (!e.ok) {
      const rejected = span.attributes['stepwise.approval.decision'] === 'reject'
      span.attributes['error.type'] = rejected ? 'rejected' : 'tool_error'
      span.status = {
        code: 'error',
        ...(opts.includeContent ? { message: String(e.result.error ?? '') } : {}),
      }
    }
    if (opts.includeContent) span.attributes['gen_ai.tool.call.result'] = toolContent(e.result)
    input.push({ kind: 'tool', callId: e.callId, result: e.result })
    close(span, e.ts)
    modelReadyAt = e.ts
  }

  const onApproval = (e: EventOf<'approval.requested'> | EventOf<'approval.resolved'>): void => {
    const span = tools.get(e.callId)
    if (!span) return
    if (e.type === 'approval.requested') {
      span.approvalAt = e.ts
      eventOn(span, 'stepwise.approval.requested', e.ts, {
        ...(e.subject.kind === 'file'
          ? { 'stepwise.change.kind': e.subject.change, 'stepwise.change.path': e.subject.path }
          : {}),
        ...(e.subject.kind === 'command' ? { 'stepwise.approval.command': true } : {}),
        ...(e.subject.kind === 'conflict' ? { 'stepwise.approval.conflict': true } : {}),
      })
      return
    }
    const waited = span.approvalAt !== undefined ? e.ts - span.approvalAt : 0
    span.attributes['stepwise.approval.decision'] = e.decision
    span.attributes['stepwise.approval.by'] = e.by
    span.attributes['stepwise.approval.wait_ms'] =
      Number(span.attributes['stepwise.approval.wait_ms'] ?? 0) + waited
    eventOn(span, 'stepwise.approval.resolved', e.ts, {
      'stepwise.approval.decision': e.decision,
      'stepwise.approval.by': e.by,
      'stepwise.approval.wait_ms': waited,
      ...(opts.includeContent && e.reason ? { 'stepwise.approval.reason': e.reason } : {}),
    })
  }

  /** A model call that failed before answering: a chat span from when it began to the error. */
  const onError = (e: EventOf<'error'>): void => {
    const parent = turn ?? ensureSession(e.ts)
    const attributes = { 'error.type': e.code, 'stepwise.error.message': e.message }
    // Tools answer their errors as values: an error while none runs is the model call's.
    if (turn && tools.size === 0) {
      const span = chatSpan(0, e.seq, modelReadyAt, parent, attributes)
      delete span.attributes['stepwise.step']
      span.status = { code: 'error', message: e.message }
      close(span, e.ts)
    }
    eventOn(parent, 'stepwise.error', e.ts, attributes)
  }

  const onFinished = (e: EventOf<'session.finished'>): void => {
    const current = ensureTurn(e)
    for (const [, span] of tools) close(span, e.ts)
    tools.clear()
    current.attributes['stepwise.finish_reason'] = e.reason
    current.attributes['stepwise.model_steps'] = e.steps
    if (e.reason === 'error') {
      current.attributes['error.type'] = 'error'
      current.status = { code: 'error', ...(e.message ? { message: e.message } : {}) }
    }
    close(current, e.ts)
    turn = undefined
  }

  /** A moment rather than work (otlp-markers.ts): an event on the turn, or on the session between turns. */
  const mark = (e: Parameters<typeof markerFor>[0]): void => {
    const { name, attributes } = markerFor(e)
    eventOn(turn ?? ensureSession(e.ts), name, e.ts, attributes)
  }

  return {
    push(e) {
      lastTs = Math.max(lastTs, e.ts)
      switch (e.type) {
        case 'session.started': {
          model = { provider: e.provider, model: e.model, baseUrl: e.baseUrl }
          const s = ensureSession(e.ts)
          Object.assign(s.attributes, {
            'gen_ai.provider.name': providerName(e.provider),
            'gen_ai.request.model': e.model,
            'stepwise.approval_policy': e.approvalPolicy,
          })
          if (e.parent)
            s.links.push({
              traceId: traceIdFor(e.parent.sessionId),
              spanId: spanIdFor(e.parent.sessionId, 'session'),
              attributes: { 'stepwise.link': 'forked-from', 'stepwise.seq': e.parent.seq },
            })
          break
        }
        case 'session.configured':
          model = {
            provider: e.provider ?? model.provider,
            model: e.model ?? model.model,
            baseUrl: e.provider || e.baseUrl ? e.baseUrl : model.baseUrl,
          }
          mark(e)
          break
        case 'user.message':
          ensureTurn(e)
          input.push({ kind: 'user', text: e.text })
          break
        case 'assistant.delta':
          ensureTurn(e)
          break
        case 'assistant.message':
          onAssistant(e)
          break
        case 'model.retry':
          ensureTurn(e)
          retries.push({
            name: 'stepwise.model.retry',
            timeMs: e.ts,
            attributes: { 'stepwise.retry.attempt': e.attempt, 'stepwise.retry.delay_ms': e.delayMs },
          })
          break
        case 'toolcall.unparsed':
          ensureTurn(e)
          mark(e)
          if (e.repair) input.push({ kind: 'user', text: e.repair })
          break
        case 'tool.started':
          onToolStarted(e)
          break
        case 'tool.output':
        case 'change.proposed':
          break
        case 'approval.requested':
        case 'approval.resolved':
          onApproval(e)
          break
        case 'tool.finished':
          onToolFinished(e)
          break
        case 'checkpoint.created':
        case 'checkpoint.restored':
        case 'session.forked':
        case 'context.compacted':
        case 'review.finding':
          mark(e)
          break
        case 'verify.finished':
          mark(e)
          modelReadyAt = e.ts
          break
        case 'error':
          onError(e)
          break
        case 'session.finished':
          onFinished(e)
          break
        case 'turn.started':
        case 'turn.finished':
          // The turn span opens at the user message and closes at session.finished (above).
          break
        default: {
          const unmapped: never = e
          throw new Error(`otlp: unmapped event ${JSON.stringify(unmapped)}`)
        }
      }
    },
    finish(endMs) {
      const end = endMs ?? lastTs
      for (const [, span] of tools) close(span, end)
      tools.clear()
      if (turn) close(turn, end)
      turn = undefined
      if (session) close(session, end)
      session = undefined
    },
  }
}

/** Every span of a stored session, in the order they ended. */
export function sessionSpans(
  sessionId: string,
  events: StepwiseEvent[],
  opts: SpanMappingOptions,
): TraceSpan[] {
  const spans: TraceSpan[] = []
  const mapper = createSpanMapper(sessionId, opts, (span) => spans.push(span))
  for (const e of events) mapper.push(e)
  mapper.finish()
  return spans
}
