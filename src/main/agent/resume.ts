import type { StepwiseEvent } from '../../shared/protocol'
import { transcriptFromEvents } from '../providers/transcript'
import type { TranscriptItem } from '../providers/types'
import { pushAll } from '../../shared/arrays'

/**
 * Continuing a session from its stored events: the resume bundle a turn starts from (the
 * app's next message, Retry, Skip; a fork's re-run) and the check a fork at step N passes.
 *
 * The transcript itself is built in one place, providers/transcript.ts, and holds for every
 * end a turn can have had — finished, stopped mid-stream or mid-tool, failed after retries,
 * killed — so the end of a session is always a place to continue from.
 *
 * A fork at a step N *inside* a call/result pair or a model turn that the session went on
 * to complete is refused (InvalidStepError naming the nearest steps) rather than moved
 * silently: the user chose N, and a fork that invented an ending the session never had
 * would compare models on another situation.
 */

export class InvalidStepError extends Error {
  override name = 'InvalidStepError'
  constructor(
    message: string,
    /** The nearest consistent steps before and after the one asked for, when there are. */
    readonly before?: number,
    readonly after?: number,
  ) {
    super(message)
  }
}

/**
 * Why the state right after `seq` cannot be forked from, or undefined when it can: a model
 * turn streaming at `seq` whose answer came later, or a call made by `seq` whose result came
 * later. What was never completed is an end like any other.
 */
function inconsistency(
  events: readonly StepwiseEvent[],
  seq: number,
  name: (seq: number) => string = (s) => `step ${s}`,
): string | undefined {
  const streaming = new Set<number>()
  const open: string[] = []
  for (const e of events) {
    if (e.seq <= seq) {
      if (e.type === 'assistant.delta' || e.type === 'model.retry') streaming.add(e.step)
      else if (e.type === 'assistant.message') {
        streaming.delete(e.step)
        pushAll(
          open,
          e.toolCalls.map((c) => c.id),
        )
      } else if (e.type === 'tool.finished') {
        const i = open.indexOf(e.callId)
        if (i >= 0) open.splice(i, 1)
      } else if (e.type === 'session.finished' || e.type === 'user.message') {
        streaming.clear()
        open.length = 0
        // The resources a message names are read right after it: a fork between misses them.
        if (e.type === 'user.message') pushAll(open, e.resources?.map((r) => r.callId) ?? [])
      }
      continue
    }
    if (e.type === 'assistant.message' && streaming.has(e.step))
      return `${name(seq)} is inside a model turn that finished later`
    if (e.type === 'tool.finished' && open.includes(e.callId))
      return `${name(seq)} is between a tool call and its result`
    if (e.type === 'session.finished' || e.type === 'user.message') return undefined
  }
  return undefined
}

/** Throws InvalidStepError when `seq` is not a step of the session or not a consistent one. */
export function checkForkPoint(
  events: readonly StepwiseEvent[],
  seq: number,
  /**
   * How the user names the event at `seq`, and which seqs may be offered instead (a fork names
   * steps by number and offers step ends: shared/steps.ts). By default: every event, by its seq.
   */
  opts: { name?: (seq: number) => string; points?: readonly number[] } = {},
): void {
  const name = opts.name ?? ((s: number) => `step ${s}`)
  const first = events[0]?.seq
  const last = events[events.length - 1]?.seq
  if (first === undefined || last === undefined) throw new InvalidStepError('the session has no events.')
  if (!events.some((e) => e.seq === seq)) {
    throw new InvalidStepError(
      `step ${seq} is out of range: the session's steps run from ${first} to ${last} (see: stepwise sessions show).`,
      seq > last ? last : undefined,
      seq < first ? first : undefined,
    )
  }
  const why = inconsistency(events, seq, name)
  if (!why) return
  // The quadratic scan only runs on a refusal, for the message.
  const valid = (opts.points ?? events.map((e) => e.seq)).filter((s) => !inconsistency(events, s))
  const before = valid.filter((s) => s < seq).pop()
  const after = valid.find((s) => s > seq)
  const choices = [before, after].filter((s) => s !== undefined).map((s) => name(s))
  throw new InvalidStepError(
    `${why}: a fork from there would invent an ending the session did not have. Choose ${choices.join(' or ') || 'another step'}.`,
    before,
    after,
  )
}

/** How many model turns the history up to `uptoSeq` holds: a continued run numbers its steps on from there. */
export function modelStepsUpTo(events: readonly StepwiseEvent[], uptoSeq: number): number {
  return events.filter((e) => e.seq <= uptoSeq && e.type === 'assistant.message').length
}

/**
 * What the continued run must add before the model's next turn, if anything: the
 * task when nothing was said yet, "Continue from here." after a final answer (a
 * model asked again right after its own answer has nothing to answer). After a
 * user message or tool results the next turn follows naturally.
 */
export function continuationMessage(transcript: readonly TranscriptItem[], task: string): string | undefined {
  const last = transcript[transcript.length - 1]
  if (!last) return task
  if (last.role === 'assistant' && last.toolCalls.length === 0) return 'Continue from here.'
  return undefined
}

/** What a turn that continues a session starts from (AgentOptions.resume). */
export interface ResumeBundle {
  transcript: TranscriptItem[]
  modelSteps: number
  events: readonly StepwiseEvent[]
}

/**
 * The resume bundle at the end of a session, whatever way its last turn ended. `retry`:
 * the unfinished turn is asked for again, so its partly streamed answer (still on the
 * timeline) is not sent back as if the model had said it.
 */
export function resumeBundle(events: readonly StepwiseEvent[], opts: { retry?: boolean } = {}): ResumeBundle {
  const lastSeq = events.at(-1)?.seq ?? 0
  const transcript = transcriptFromEvents(events, lastSeq)
  const last = transcript.at(-1)
  if (opts.retry && last?.role === 'assistant' && last.interrupted) transcript.pop()
  return { transcript, modelSteps: modelStepsUpTo(events, lastSeq), events }
}
