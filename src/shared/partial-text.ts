/**
 * The text a model turn has streamed so far, for a turn that may never finish (stopped,
 * failed, or its process killed). A retry starts the answer again from nothing; until the
 * new attempt streams, the text of the one before is kept, so what the user saw does not
 * vanish when the retries run out. The timeline (reducer.ts) and the transcript the model
 * is sent next (main/providers/transcript.ts) both read it through these two functions.
 */

export interface PartialText {
  text: string
  /** The next delta starts a new attempt: it replaces the text instead of extending it. */
  restart: boolean
}

export const NO_PARTIAL_TEXT: PartialText = { text: '', restart: false }

export function withDelta(partial: PartialText, delta: string): PartialText {
  return { text: partial.restart ? delta : partial.text + delta, restart: false }
}

export function withRetry(partial: PartialText): PartialText {
  return { text: partial.text, restart: true }
}
