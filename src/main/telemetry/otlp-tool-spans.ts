import type { EventOf } from '../../shared/protocol'
import { spanIdFor } from './otlp-ids'
import type { SpanMappingOptions } from './otlp-attributes'
import { toolContent } from './otlp-content'
import type { OpenSpan, SpanTree } from './otlp-span-tree'
import { isRecord } from '../../shared/records'

/**
 * The tools' side of a trace: an `execute_tool` span per tool call, from its start to
 * its result, with the approval it waited for as span events and attributes.
 */

type ToolSpan = OpenSpan & { approvalAt?: number }

export interface ToolSpans {
  started(e: EventOf<'tool.started'>): void
  /** Ends the call's span; returns false for a call it never saw start. */
  finished(e: EventOf<'tool.finished'>): boolean
  approval(e: EventOf<'approval.requested'> | EventOf<'approval.resolved'>): void
  /** Whether a tool call is running. */
  running(): boolean
  /** Ends every call still running (a turn cut off) at `endMs`. */
  endAll(endMs: number): void
}

export function createToolSpans(tree: SpanTree, opts: SpanMappingOptions): ToolSpans {
  const tools = new Map<string, ToolSpan>()

  const requested = (span: ToolSpan, e: EventOf<'approval.requested'>): void => {
    span.approvalAt = e.ts
    tree.eventOn(span, 'stepwise.approval.requested', e.ts, {
      ...(e.subject.kind === 'file'
        ? { 'stepwise.change.kind': e.subject.change, 'stepwise.change.path': e.subject.path }
        : {}),
      ...(e.subject.kind === 'command' ? { 'stepwise.approval.command': true } : {}),
      ...(e.subject.kind === 'conflict' ? { 'stepwise.approval.conflict': true } : {}),
    })
  }

  const resolved = (span: ToolSpan, e: EventOf<'approval.resolved'>): void => {
    const waited = span.approvalAt !== undefined ? e.ts - span.approvalAt : 0
    span.attributes['stepwise.approval.decision'] = e.decision
    span.attributes['stepwise.approval.by'] = e.by
    span.attributes['stepwise.approval.wait_ms'] =
      Number(span.attributes['stepwise.approval.wait_ms'] ?? 0) + waited
    tree.eventOn(span, 'stepwise.approval.resolved', e.ts, {
      'stepwise.approval.decision': e.decision,
      'stepwise.approval.by': e.by,
      'stepwise.approval.wait_ms': waited,
      ...(opts.includeContent && e.reason ? { 'stepwise.approval.reason': e.reason } : {}),
    })
  }

  return {
    started(e) {
      const parent = tree.ensureTurn(e)
      const path = isRecord(e.args) && typeof e.args.path === 'string' ? e.args.path : undefined
      const span = tree.open({
        spanId: spanIdFor(tree.sessionId, 'tool', e.seq),
        parentSpanId: parent.spanId,
        name: `execute_tool ${e.name}`,
        kind: 'internal',
        startMs: e.ts,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': e.name,
          'gen_ai.tool.call.id': e.callId,
          'gen_ai.tool.type': 'function',
          'gen_ai.conversation.id': tree.sessionId,
          'stepwise.tool.mutating': e.mutating,
          'stepwise.seq': e.seq,
          // A path names a file; it is not the file's content.
          ...(path !== undefined ? { 'stepwise.tool.path': path } : {}),
        },
      })
      if (opts.includeContent) span.attributes['gen_ai.tool.call.arguments'] = toolContent(e.args)
      tools.set(e.callId, span)
    },

    finished(e) {
      const span = tools.get(e.callId)
      if (!span) return false
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
      tree.close(span, e.ts)
      return true
    },

    approval(e) {
      const span = tools.get(e.callId)
      if (!span) return
      if (e.type === 'approval.requested') requested(span, e)
      else resolved(span, e)
    },

    running: () => tools.size > 0,

    endAll(endMs) {
      for (const [, span] of tools) tree.close(span, endMs)
      tools.clear()
    },
  }
}
