import type { EventOf, ProviderId } from '../../shared/protocol'
import { pushAll } from '../../shared/arrays'
import { spanIdFor, traceIdFor } from './otlp-ids'
import {
  providerName,
  serverAttributes,
  usageAttributes,
  type Attributes,
  type SpanMappingOptions,
  type TraceSpan,
} from './otlp-attributes'
import { chatInputMessages, chatOutputMessages, type PendingInput } from './otlp-content'
import type { OpenSpan, SpanTree } from './otlp-span-tree'

/**
 * The model's side of a trace: which model the session talks to, a `chat` span per
 * model call (an answer, or an error before one) with the retries that led to it,
 * and what reached the model since its previous call (for `--include-content`).
 */

export interface ChatSpans {
  /** `session.started`: the model, and the session span's model attributes and fork link. */
  started(e: EventOf<'session.started'>): void
  /** `session.configured`: a model or endpoint switched mid-session. */
  configured(e: EventOf<'session.configured'>): void
  /** Text that reaches the model with its next call (a user message, a repair note). */
  userText(text: string): void
  /** A tool result that reaches the model with its next call. */
  toolResult(callId: string, result: Record<string, unknown>): void
  retry(e: EventOf<'model.retry'>): void
  answered(e: EventOf<'assistant.message'>): void
  /** An error while no tool runs: the model call's, from when it began to the error. */
  failed(e: EventOf<'error'>, parent: OpenSpan, attributes: Attributes): void
}

export function createChatSpans(tree: SpanTree, opts: SpanMappingOptions): ChatSpans {
  let model: ChatModel = { provider: 'openai', model: '', baseUrl: undefined }
  /** Retries of the model step in progress, attached to its chat span. */
  let retries: TraceSpan['events'] = []
  let input: PendingInput[] = []

  const chatSpan = (call: ChatCall): OpenSpan => {
    const span = openChatSpan(tree, model, call)
    pushAll(span.events, retries)
    retries = []
    return span
  }

  return {
    started(e) {
      model = { provider: e.provider, model: e.model, baseUrl: e.baseUrl }
      sessionStarted(tree, e)
    },

    configured(e) {
      model = {
        provider: e.provider ?? model.provider,
        model: e.model ?? model.model,
        baseUrl: e.provider || e.baseUrl ? e.baseUrl : model.baseUrl,
      }
    },

    userText(text) {
      input.push({ kind: 'user', text })
    },

    toolResult(callId, result) {
      input.push({ kind: 'tool', callId, result })
    },

    retry(e) {
      retries.push({
        name: 'stepwise.model.retry',
        timeMs: e.ts,
        attributes: { 'stepwise.retry.attempt': e.attempt, 'stepwise.retry.delay_ms': e.delayMs },
      })
    },

    answered(e) {
      const parent = tree.ensureTurn(e)
      model = { ...model, provider: e.provider, model: e.model }
      const finish = e.toolCalls.length > 0 ? 'tool_call' : 'stop'
      const span = chatSpan({
        step: e.step,
        seq: e.seq,
        startMs: e.ts - e.durationMs,
        parent,
        attributes: {
          'gen_ai.response.finish_reasons': [finish],
          ...usageAttributes(e.usage),
          ...(e.textToolCalls ? { 'stepwise.text_tool_calls': true } : {}),
          ...(e.context ? { 'stepwise.context.used_tokens': e.context.usedTokens } : {}),
          ...(e.context ? { 'stepwise.context.window_tokens': e.context.windowTokens } : {}),
        },
      })
      if (opts.includeContent) {
        span.attributes['gen_ai.input.messages'] = chatInputMessages(input)
        span.attributes['gen_ai.output.messages'] = chatOutputMessages(e, finish)
      }
      input = []
      tree.addUsage(e.usage)
      tree.close(span, e.ts)
      tree.readyAt = e.ts
    },

    failed(e, parent, attributes) {
      const span = chatSpan({ step: 0, seq: e.seq, startMs: tree.readyAt, parent, attributes })
      delete span.attributes['stepwise.step']
      span.status = { code: 'error', message: e.message }
      tree.close(span, e.ts)
    },
  }
}

/** The model the session talks to. */
interface ChatModel {
  provider: ProviderId
  model: string
  baseUrl: string | undefined
}

/** One model call: its step and event, when it began, the span it sits under, and its own attributes. */
interface ChatCall {
  step: number
  seq: number
  startMs: number
  parent: OpenSpan
  attributes: Attributes
}

function openChatSpan(tree: SpanTree, model: ChatModel, call: ChatCall): OpenSpan {
  const { sessionId } = tree
  const { step, seq, parent } = call
  return tree.open({
    spanId: spanIdFor(sessionId, 'chat', seq),
    parentSpanId: parent.spanId,
    name: `chat ${model.model}`,
    kind: 'client',
    startMs: Math.max(call.startMs, parent.startMs),
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': providerName(model.provider),
      'gen_ai.request.model': model.model,
      'gen_ai.conversation.id': sessionId,
      'stepwise.provider': model.provider,
      'stepwise.step': step,
      'stepwise.seq': seq,
      ...serverAttributes(model.baseUrl),
      ...call.attributes,
    },
  })
}

/** The session span's model attributes, and the link to the session it was forked from. */
function sessionStarted(tree: SpanTree, e: EventOf<'session.started'>): void {
  const s = tree.session(e.ts)
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
}
