import type { ApprovalAnswer } from './types'

/*
 * "Accept all" / "Reject all" on a step of several calls: the core asks for each call when it comes
 * (one after another), so the answer for the ones still to come is kept here and given to each as it
 * asks. Every call is still asked and answered on the record, one by one.
 */

const intents = new Map<string, ApprovalAnswer>()

export function answerLater(callIds: readonly string[], answer: ApprovalAnswer): void {
  for (const id of callIds) intents.set(id, answer)
}

/** The answer chosen ahead for this call, once (it is then forgotten). */
export function takeAnswer(callId: string): ApprovalAnswer | undefined {
  const answer = intents.get(callId)
  intents.delete(callId)
  return answer
}

/** The answer chosen ahead for this call, if any, without taking it. */
export function answerChosen(callId: string): ApprovalAnswer | undefined {
  return intents.get(callId)
}

/** Forgets the answer chosen ahead for this call: it will be asked again. */
export function forgetAnswer(callId: string): void {
  intents.delete(callId)
}
