import type { StepwiseEvent, Usage } from '../../shared/protocol'
import { spanIdFor, traceIdFor } from './otlp-ids'
import { usageAttributes, type Attributes, type TraceSpan } from './otlp-attributes'

/**
 * The open spans of one session's trace: the session span, the turn span inside it,
 * and how a span is opened and ended. The spans for model calls and tool calls
 * (otlp-chat-spans.ts, otlp-tool-spans.ts) hang under the turn; a span goes to
 * `onSpan` when it ends.
 */

export const AGENT_NAME = 'stepwise'

export interface OpenSpan extends TraceSpan {
  /** Summed into the span's usage attributes when it ends. */
  usage?: Usage
}

export type NewSpan = Omit<OpenSpan, 'traceId' | 'events' | 'links' | 'status' | 'endMs'>

export interface SpanTree {
  readonly sessionId: string
  open(span: NewSpan): OpenSpan
  /** Ends `span` at `endMs` (never before it started) and hands it on. */
  close(span: OpenSpan, endMs: number): void
  /** The session span, opened at `ts` if it is not open yet. */
  session(ts: number): OpenSpan
  /** The open turn, if any. */
  readonly turn: OpenSpan | undefined
  /** The turn span, opened at `event` (and the session span with it) if none is open. */
  ensureTurn(event: Pick<StepwiseEvent, 'ts' | 'seq'>): OpenSpan
  /** The turn while one is open, else the session: where a moment between turns goes. */
  current(ts: number): OpenSpan
  /** Ends the open turn. */
  endTurn(endMs: number): void
  /** When the next model call began: the end of whatever ran before it in the turn. */
  readyAt: number
  /** Adds a model call's tokens to the session's and the turn's totals. */
  addUsage(usage: Usage): void
  /** An event on `span` (a moment rather than work). */
  eventOn(span: OpenSpan, name: string, ts: number, attributes: Attributes): void
  /** Ends the turn and the session span, if open. */
  finish(endMs: number): void
}

/** The session's open spans; `onSpan` gets each span as it ends. */
class OpenSpanTree implements SpanTree {
  private readonly traceId: string
  private sessionSpan: OpenSpan | undefined
  private turnSpan: OpenSpan | undefined
  private turns = 0
  readyAt = 0

  constructor(
    readonly sessionId: string,
    private readonly onSpan: (span: TraceSpan) => void,
  ) {
    this.traceId = traceIdFor(sessionId)
  }

  get turn(): OpenSpan | undefined {
    return this.turnSpan
  }

  open(span: NewSpan): OpenSpan {
    return {
      traceId: this.traceId,
      events: [],
      links: [],
      status: { code: 'unset' },
      endMs: span.startMs,
      ...span,
    }
  }

  close(span: OpenSpan, endMs: number): void {
    const { usage, ...rest } = span
    if (usage) Object.assign(rest.attributes, usageAttributes(usage))
    // A child never outlives its parent in the file: clocks only go forward here.
    this.onSpan({ ...rest, endMs: Math.max(endMs, rest.startMs) })
  }

  session(ts: number): OpenSpan {
    this.sessionSpan ??= this.open({
      spanId: spanIdFor(this.sessionId, 'session'),
      name: `invoke_agent ${AGENT_NAME}`,
      kind: 'internal',
      startMs: ts,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': AGENT_NAME,
        'gen_ai.conversation.id': this.sessionId,
      },
      usage: { inputTokens: 0, outputTokens: 0 },
    })
    return this.sessionSpan
  }

  ensureTurn(event: Pick<StepwiseEvent, 'ts' | 'seq'>): OpenSpan {
    const parent = this.session(event.ts)
    if (this.turnSpan) return this.turnSpan
    this.turns += 1
    this.readyAt = event.ts
    this.turnSpan = this.open({
      spanId: spanIdFor(this.sessionId, 'turn', event.seq),
      parentSpanId: parent.spanId,
      name: `turn ${this.turns}`,
      kind: 'internal',
      startMs: event.ts,
      attributes: {
        'gen_ai.conversation.id': this.sessionId,
        'stepwise.turn': this.turns,
        'stepwise.seq': event.seq,
      },
      usage: { inputTokens: 0, outputTokens: 0 },
    })
    return this.turnSpan
  }

  current(ts: number): OpenSpan {
    return this.turnSpan ?? this.session(ts)
  }

  endTurn(endMs: number): void {
    if (this.turnSpan) this.close(this.turnSpan, endMs)
    this.turnSpan = undefined
  }

  addUsage(usage: Usage): void {
    for (const span of [this.sessionSpan, this.turnSpan]) {
      if (!span?.usage) continue
      span.usage.inputTokens += usage.inputTokens
      span.usage.outputTokens += usage.outputTokens
    }
  }

  eventOn(span: OpenSpan, name: string, ts: number, attributes: Attributes): void {
    span.events.push({ name, timeMs: ts, attributes })
  }

  finish(endMs: number): void {
    this.endTurn(endMs)
    if (this.sessionSpan) this.close(this.sessionSpan, endMs)
    this.sessionSpan = undefined
  }
}

export function createSpanTree(sessionId: string, onSpan: (span: TraceSpan) => void): SpanTree {
  return new OpenSpanTree(sessionId, onSpan)
}
