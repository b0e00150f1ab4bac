import type { EventOf, StepwiseEvent } from '../../shared/protocol'
import { markerFor, type SpanMappingOptions, type TraceSpan } from './otlp-attributes'
import { createChatSpans } from './otlp-chat-spans'
import { createSpanTree } from './otlp-span-tree'
import { createToolSpans } from './otlp-tool-spans'

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
export { AGENT_NAME } from './otlp-span-tree'

export interface SpanMapper {
  push(event: StepwiseEvent): void
  /** Ends the spans still open (a turn cut off, the session itself) at `endMs` or the last event's time. */
  finish(endMs?: number): void
}

/**
 * The session's events in order, each handed to the part of the trace it belongs to:
 * the span tree (session and turns: otlp-span-tree.ts), the model calls
 * (otlp-chat-spans.ts), the tool calls (otlp-tool-spans.ts), or a marker event.
 */
export function createSpanMapper(
  sessionId: string,
  opts: SpanMappingOptions,
  onSpan: (span: TraceSpan) => void,
): SpanMapper {
  const tree = createSpanTree(sessionId, onSpan)
  const chat = createChatSpans(tree, opts)
  const tools = createToolSpans(tree, opts)
  let lastTs = 0

  /** A moment rather than work (otlp-attributes.ts): an event on the turn, or on the session between turns. */
  const mark = (e: Parameters<typeof markerFor>[0]): void => {
    const { name, attributes } = markerFor(e)
    tree.eventOn(tree.current(e.ts), name, e.ts, attributes)
  }

  /** A model call that failed before answering: a chat span from when it began to the error. */
  const onError = (e: EventOf<'error'>): void => {
    const parent = tree.current(e.ts)
    const attributes = { 'error.type': e.code, 'stepwise.error.message': e.message }
    // Tools answer their errors as values: an error while none runs is the model call's.
    if (tree.turn && !tools.running()) chat.failed(e, parent, attributes)
    tree.eventOn(parent, 'stepwise.error', e.ts, attributes)
  }

  const onFinished = (e: EventOf<'session.finished'>): void => {
    const current = tree.ensureTurn(e)
    tools.endAll(e.ts)
    current.attributes['stepwise.finish_reason'] = e.reason
    current.attributes['stepwise.model_steps'] = e.steps
    if (e.reason === 'error') {
      current.attributes['error.type'] = 'error'
      current.status = { code: 'error', ...(e.message ? { message: e.message } : {}) }
    }
    tree.endTurn(e.ts)
  }

  return {
    push(e) {
      lastTs = Math.max(lastTs, e.ts)
      switch (e.type) {
        case 'session.started':
          chat.started(e)
          break
        case 'session.configured':
          chat.configured(e)
          mark(e)
          break
        case 'user.message':
          tree.ensureTurn(e)
          chat.userText(e.text)
          break
        case 'assistant.delta':
          tree.ensureTurn(e)
          break
        case 'assistant.message':
          chat.answered(e)
          break
        case 'model.retry':
          tree.ensureTurn(e)
          chat.retry(e)
          break
        case 'toolcall.unparsed':
          tree.ensureTurn(e)
          mark(e)
          if (e.repair) chat.userText(e.repair)
          break
        case 'tool.started':
          tools.started(e)
          break
        case 'tool.output':
        case 'change.proposed':
          break
        case 'approval.requested':
        case 'approval.resolved':
          tools.approval(e)
          break
        case 'tool.finished':
          if (!tools.finished(e)) break
          chat.toolResult(e.callId, e.result)
          tree.readyAt = e.ts
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
          tree.readyAt = e.ts
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
      tools.endAll(end)
      tree.finish(end)
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
