import type { StepwiseEvent, SubjectOf } from './protocol'
import type { McpCall, SessionView, TimelineStep, ToolStep } from './reducerTypes'

/*
 * The tool-call part of the session reducer (reducer.ts): a call starts, streams output, may wait
 * for the user's approval, and finishes. Kept apart so the main reducer stays readable; pure and
 * total like it.
 */

export type ToolEvent = Extract<
  StepwiseEvent,
  {
    type:
      | 'change.proposed'
      | 'tool.started'
      | 'tool.output'
      | 'approval.requested'
      | 'approval.resolved'
      | 'tool.finished'
  }
>

function updateTool(
  steps: TimelineStep[],
  callId: string,
  update: (step: ToolStep) => TimelineStep,
): TimelineStep[] {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]
    if (step.kind === 'tool' && step.callId === callId) {
      const next = steps.slice()
      next[i] = update(step)
      return next
    }
  }
  return steps
}

/**
 * The row a change.proposed put up for this call, or -1. Proposals follow the model step that
 * made them, so the search ends at the newest model row: a call that was not proposed (most are)
 * costs its step's rows, not the whole timeline's (a 10,000-step session took seconds to open).
 */
function proposedRow(
  steps: readonly TimelineStep[],
  callId: string,
): { index: number; step: ToolStep } | undefined {
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]
    if (step.kind === 'model') return undefined
    if (step.kind === 'tool' && step.callId === callId && step.proposed === true) return { index: i, step }
  }
  return undefined
}

/** The index of the newest model step's row, or -1: a scan back over the rows after it only. */
export function newestModelRow(steps: readonly TimelineStep[]): number {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i].kind === 'model') return i
  return -1
}

/** `s` already carries the event's `lastSeq`. */
export function reduceToolEvent(s: SessionView, event: ToolEvent): SessionView {
  switch (event.type) {
    case 'change.proposed':
      // Each change is on the timeline from now, waiting its turn; its call fills the row when it starts.
      return { ...s, steps: [...s.steps, proposedStep(event)] }
    case 'tool.started':
      return started(s, event)
    case 'tool.output':
      return {
        ...s,
        steps: updateTool(s.steps, event.callId, (t) => ({ ...t, output: t.output + event.text })),
      }
    case 'approval.requested':
      return {
        ...s,
        status: 'waiting',
        pendingApprovals: [...s.pendingApprovals, event.callId],
        steps: updateTool(s.steps, event.callId, (t) => ({
          ...t,
          status: 'waiting',
          approval: {
            decision: 'pending',
            by: 'user',
            diff: event.subject.kind === 'file' ? event.subject.diff : undefined,
            requestedSeq: event.seq,
            requestedTs: event.ts,
            ...(event.subject.kind === 'file' && event.subject.agentFile ? { agentFile: true } : {}),
          },
          ...(event.subject.kind === 'mcp' ? { mcp: mcpCallOf(event.subject) } : {}),
        })),
      }
    case 'approval.resolved':
      return {
        ...s,
        status: 'running-tool',
        pendingApprovals: s.pendingApprovals.filter((id) => id !== event.callId),
        steps: updateTool(s.steps, event.callId, (t) => ({
          ...t,
          status: event.decision === 'reject' ? 'rejected' : 'running',
          approval: {
            decision: event.decision,
            by: event.by,
            reason: event.reason,
            diff: event.appliedDiff ?? t.approval?.diff,
            requestedSeq: t.approval?.requestedSeq ?? event.seq,
            // Policy answers at once; only a user's answer is a wait worth showing.
            ...(t.approval?.requestedTs !== undefined
              ? {
                  requestedTs: t.approval.requestedTs,
                  waitMs: Math.max(0, event.ts - t.approval.requestedTs),
                }
              : {}),
            ...(event.rule ? { rule: event.rule } : {}),
            ...(t.approval?.agentFile ? { agentFile: true } : {}),
          },
        })),
      }
    case 'tool.finished':
      return {
        ...s,
        status: 'thinking',
        steps: updateTool(s.steps, event.callId, (t) => ({
          ...t,
          status: t.status === 'rejected' ? 'rejected' : event.ok ? 'ok' : 'error',
          result: event.result,
          durationMs: event.durationMs,
          ...(event.attachments && event.attachments.length > 0 ? { attachments: event.attachments } : {}),
        })),
      }
  }
}

/** A call starts: in the row its proposal put up, or in a new one. */
function started(s: SessionView, event: Extract<ToolEvent, { type: 'tool.started' }>): SessionView {
  const proposed = proposedRow(s.steps, event.callId)
  if (proposed) {
    // The row stays where the proposal put it (and keeps its seq): the call now runs in it.
    const steps = s.steps.slice()
    const { proposed: _was, approval: _preview, ...rest } = proposed.step
    steps[proposed.index] = { ...rest, name: event.name, args: event.args, status: 'running' }
    return { ...s, status: 'running-tool', steps }
  }
  return {
    ...s,
    status: 'running-tool',
    steps: [
      ...s.steps,
      {
        kind: 'tool',
        seq: event.seq,
        ts: event.ts,
        callId: event.callId,
        name: event.name,
        args: event.args,
        mutating: event.mutating,
        status: 'running',
        output: '',
      },
    ],
  }
}

function mcpCallOf(subject: SubjectOf<'mcp'>): McpCall {
  const { kind: _kind, ...call } = subject
  return call
}

/**
 * Proposed changes whose call never started (the turn was stopped, or the tool-call limit reached):
 * they read as not run, not as waiting for ever.
 */
export function endProposals(steps: TimelineStep[]): TimelineStep[] {
  // Proposals follow the model step that made them: only the rows after the newest one can hold one.
  const from = newestModelRow(steps) + 1
  if (!steps.slice(from).some((t) => t.kind === 'tool' && t.proposed)) return steps
  return steps.map((t, i) => {
    if (i < from || t.kind !== 'tool' || !t.proposed) return t
    const { proposed: _was, approval: _preview, ...rest } = t
    return {
      ...rest,
      status: 'error',
      result: { ok: false, error: 'Not run: the turn ended before this change was asked.' },
    }
  })
}

function proposedStep(event: Extract<ToolEvent, { type: 'change.proposed' }>): ToolStep {
  const c = event.change
  return {
    kind: 'tool',
    seq: event.seq,
    ts: event.ts,
    callId: c.callId,
    name: c.tool,
    args: { path: c.path },
    mutating: true,
    status: 'waiting',
    output: '',
    proposed: true,
    ...(c.diff !== undefined
      ? { approval: { decision: 'pending', by: 'user', diff: c.diff, requestedSeq: event.seq } }
      : {}),
  }
}
