import type { StepwiseEvent } from '../../shared/protocol'
import { summaryItem } from '../context/compaction'
import type { TranscriptItem } from '../providers/types'

/**
 * Rebuilding the provider-neutral transcript from stored events, so a session can
 * be continued from any consistent step — on the same model or another one (a fork).
 *
 * A step N is consistent when the model could be asked for its next turn right
 * after it: every tool call made by then has its result, and no model turn is half
 * streamed. A step inside a call/result pair is refused (InvalidStepError naming
 * the nearest consistent steps) rather than moved silently: the user chose N, and
 * a fork from a different step than asked would compare models on another situation.
 *
 * A compaction inside a turn is not replayed: the transcript is rebuilt whole and the
 * context manager compacts it again if it does not fit the (possibly different) model.
 * One the user asked for between turns (`keptItems` set) is: later turns start from its summary.
 * Responses-API ids are dropped: a fork starts a new chain on the server.
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

/** The output the loop gives the model for a call a stop left unanswered (see Agent.loop). */
const INTERRUPTED_OUTPUT = JSON.stringify({ ok: false, error: 'Not run: the user interrupted the session.' })

/** Why the state right after `seq` cannot be continued from, or undefined when it can. */
function inconsistency(events: readonly StepwiseEvent[], seq: number): string | undefined {
  const open = new Set<string>()
  const finished = new Set<number>()
  const streaming = new Set<number>()
  let ended = false
  for (const e of events) {
    if (e.seq > seq) break
    if (e.type === 'assistant.message') {
      finished.add(e.step)
      streaming.delete(e.step)
      for (const c of e.toolCalls) open.add(c.id)
    } else if (e.type === 'assistant.delta' || e.type === 'model.retry') {
      if (!finished.has(e.step)) streaming.add(e.step)
    } else if (e.type === 'tool.finished') open.delete(e.callId)
    else if (e.type === 'session.finished') ended = true
  }
  if (streaming.size > 0) return `step ${seq} is inside a model turn that had not finished`
  // After a stop, the loop answered the open calls itself; those are consistent.
  if (open.size > 0 && !ended) return `step ${seq} is between a tool call and its result`
  return undefined
}

/** Every step at which the session can be continued (the seq of each event that is consistent). */
export function consistentSteps(events: readonly StepwiseEvent[]): number[] {
  return events.filter((e) => !inconsistency(events, e.seq)).map((e) => e.seq)
}

/** Throws InvalidStepError when `seq` is not a step of the session or not a consistent one. */
export function checkForkPoint(events: readonly StepwiseEvent[], seq: number): void {
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
  const why = inconsistency(events, seq)
  if (!why) return
  // The quadratic scan only runs on a refusal, for the message.
  const valid = consistentSteps(events)
  const before = valid.filter((s) => s < seq).pop()
  const after = valid.find((s) => s > seq)
  const choices = [before, after].filter((s) => s !== undefined).map((s) => `step ${s}`)
  throw new InvalidStepError(
    `${why}: the model cannot continue from there. Choose ${choices.join(' or ') || 'another step'}.`,
    before,
    after,
  )
}

/**
 * The transcript the model had seen right after event `uptoSeq`: user messages,
 * assistant turns with their tool calls (no responseId) and tool results, in order.
 * Throws InvalidStepError when `uptoSeq` is not a consistent step.
 */
export function transcriptFromEvents(events: readonly StepwiseEvent[], uptoSeq: number): TranscriptItem[] {
  checkForkPoint(events, uptoSeq)
  const items: TranscriptItem[] = []
  const unanswered = new Map<string, string>()
  for (const e of events) {
    if (e.seq > uptoSeq) break
    switch (e.type) {
      case 'user.message':
        items.push({ role: 'user', text: e.text })
        break
      case 'toolcall.unparsed':
        // The loop asked the model to rewrite an unreadable call: the model saw it as a user turn.
        if (e.repair) items.push({ role: 'user', text: e.repair })
        break
      case 'assistant.message':
        items.push({ role: 'assistant', text: e.text, toolCalls: e.toolCalls })
        for (const c of e.toolCalls) unanswered.set(c.id, c.name)
        break
      case 'tool.finished':
        unanswered.delete(e.callId)
        items.push({ role: 'tool', callId: e.callId, name: e.name, output: JSON.stringify(e.result) })
        break
      case 'context.compacted':
        // Everything but the first message and the last `keptItems` becomes the summary.
        if (e.keptItems !== undefined && e.summary !== undefined && items.length - 1 - e.keptItems > 0)
          items.splice(1, items.length - 1 - e.keptItems, summaryItem(e.summary))
        break
      case 'session.finished':
        for (const [callId, name] of unanswered)
          items.push({ role: 'tool', callId, name, output: INTERRUPTED_OUTPUT })
        unanswered.clear()
        break
      default:
        break
    }
  }
  return items
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
