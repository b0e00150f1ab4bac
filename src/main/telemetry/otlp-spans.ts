import type { EventOf, StepwiseEvent } from '../../shared/protocol'
import { markerFor, type SpanMappingOptions, type TraceSpan } from './otlp-attributes'
import { createChatSpans, type ChatSpans } from './otlp-chat-spans'
import { createSpanTree, type SpanTree } from './otlp-span-tree'
import { createToolSpans, type ToolSpans } from './otlp-tool-spans'

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
  return new TraceMapper(createSpanTree(sessionId, onSpan), opts)
}

type ConversationEvent = EventOf<
  | 'session.started'
  | 'session.configured'
  | 'user.message'
  | 'assistant.delta'
  | 'assistant.message'
  | 'model.retry'
  | 'toolcall.unparsed'
>

type ToolEvent = EventOf<
  | 'tool.started'
  | 'tool.output'
  | 'change.proposed'
  | 'approval.requested'
  | 'approval.resolved'
  | 'tool.finished'
>

class TraceMapper implements SpanMapper {
  private readonly chat: ChatSpans
  private readonly tools: ToolSpans
  private lastTs = 0

  constructor(
    private readonly tree: SpanTree,
    opts: SpanMappingOptions,
  ) {
    this.chat = createChatSpans(tree, opts)
    this.tools = createToolSpans(tree, opts)
  }

  push(e: StepwiseEvent): void {
    this.lastTs = Math.max(this.lastTs, e.ts)
    switch (e.type) {
      case 'session.started':
      case 'session.configured':
      case 'user.message':
      case 'assistant.delta':
      case 'assistant.message':
      case 'model.retry':
      case 'toolcall.unparsed':
        return this.conversation(e)
      case 'tool.started':
      case 'tool.output':
      case 'change.proposed':
      case 'approval.requested':
      case 'approval.resolved':
      case 'tool.finished':
        return this.tool(e)
      case 'checkpoint.created':
      case 'checkpoint.restored':
      case 'session.forked':
      case 'context.compacted':
      case 'review.finding':
        return this.mark(e)
      case 'verify.finished':
        this.mark(e)
        this.tree.readyAt = e.ts
        return
      case 'error':
        return this.failed(e)
      case 'session.finished':
        return this.finished(e)
      case 'turn.started':
      case 'turn.finished':
        // The turn span opens at the user message and closes at session.finished.
        return
      default: {
        const unmapped: never = e
        throw new Error(`otlp: unmapped event ${JSON.stringify(unmapped)}`)
      }
    }
  }

  finish(endMs?: number): void {
    const end = endMs ?? this.lastTs
    this.tools.endAll(end)
    this.tree.finish(end)
  }

  /** What the user and the model say, and which model they say it to. */
  private conversation(e: ConversationEvent): void {
    const { tree, chat } = this
    switch (e.type) {
      case 'session.started':
        return chat.started(e)
      case 'session.configured':
        chat.configured(e)
        return this.mark(e)
      case 'user.message':
        tree.ensureTurn(e)
        return chat.userText(e.text)
      case 'assistant.delta':
        tree.ensureTurn(e)
        return
      case 'assistant.message':
        return chat.answered(e)
      case 'model.retry':
        tree.ensureTurn(e)
        return chat.retry(e)
      case 'toolcall.unparsed':
        tree.ensureTurn(e)
        this.mark(e)
        if (e.repair) chat.userText(e.repair)
    }
  }

  /** A tool call's course: it starts, may wait for approval, and finishes with a result for the model. */
  private tool(e: ToolEvent): void {
    switch (e.type) {
      case 'tool.started':
        return this.tools.started(e)
      case 'tool.output':
      case 'change.proposed':
        return
      case 'approval.requested':
      case 'approval.resolved':
        return this.tools.approval(e)
      case 'tool.finished':
        if (!this.tools.finished(e)) return
        this.chat.toolResult(e.callId, e.result)
        this.tree.readyAt = e.ts
    }
  }

  /** A moment rather than work (otlp-attributes.ts): an event on the turn, or on the session between turns. */
  private mark(e: Parameters<typeof markerFor>[0]): void {
    const { name, attributes } = markerFor(e)
    this.tree.eventOn(this.tree.current(e.ts), name, e.ts, attributes)
  }

  /** A model call that failed before answering: a chat span from when it began to the error. */
  private failed(e: EventOf<'error'>): void {
    const parent = this.tree.current(e.ts)
    const attributes = { 'error.type': e.code, 'stepwise.error.message': e.message }
    // Tools answer their errors as values: an error while none runs is the model call's.
    if (this.tree.turn && !this.tools.running()) this.chat.failed(e, parent, attributes)
    this.tree.eventOn(parent, 'stepwise.error', e.ts, attributes)
  }

  private finished(e: EventOf<'session.finished'>): void {
    const current = this.tree.ensureTurn(e)
    this.tools.endAll(e.ts)
    current.attributes['stepwise.finish_reason'] = e.reason
    current.attributes['stepwise.model_steps'] = e.steps
    if (e.reason === 'error') {
      current.attributes['error.type'] = 'error'
      current.status = { code: 'error', ...(e.message ? { message: e.message } : {}) }
    }
    this.tree.endTurn(e.ts)
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
