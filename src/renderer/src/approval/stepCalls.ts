import type { StepwiseEvent } from '../../../shared/protocol'

/*
 * The other calls of the step a waiting approval belongs to. The core runs a step's calls one after
 * another and asks for each when it comes, but the model's message already names them all: the card
 * shows where this one stands among them, and what comes next. Pure, so it is tested without a DOM.
 */

export type CallState = 'done' | 'waiting' | 'next'

export interface StepCall {
  callId: string
  name: string
  /** The raw argument text; the view summarises it. */
  args: string
  state: CallState
}

export interface StepCalls {
  calls: StepCall[]
  /** 0-based position of the waiting call. */
  index: number
}

/** The calls of the model message that made `callId`, when it made more than one; else null. */
export function stepCallsOf(events: readonly StepwiseEvent[], callId: string): StepCalls | null {
  let message: Extract<StepwiseEvent, { type: 'assistant.message' }> | undefined
  for (let i = events.length - 1; i >= 0 && !message; i--) {
    const e = events[i]
    if (e.type === 'assistant.message' && e.toolCalls.some((c) => c.id === callId)) message = e
  }
  if (!message || message.toolCalls.length < 2) return null
  const finished = new Set<string>()
  for (const e of events) if (e.type === 'tool.finished') finished.add(e.callId)
  const calls = message.toolCalls.map((c): StepCall => ({
    callId: c.id,
    name: c.name,
    args: c.arguments,
    state: c.id === callId ? 'waiting' : finished.has(c.id) ? 'done' : 'next',
  }))
  return { calls, index: calls.findIndex((c) => c.callId === callId) }
}

/** The calls still to come after the waiting one. */
export function upcoming(step: StepCalls): string[] {
  return step.calls.filter((c) => c.state === 'next').map((c) => c.callId)
}
