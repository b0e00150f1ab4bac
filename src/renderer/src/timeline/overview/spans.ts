import type { StepwiseEvent } from '../../../../shared/protocol'
import { displayToolName } from '../describe'
import { summarizeArgs } from '../summary'
import { isRecord } from '../../../../shared/records'

/**
 * A session's events as bars on a time axis: one span per turn, model call, tool call,
 * command and compaction, and one mark per checkpoint, restore, fork, error and the
 * other instant steps. Each carries the `seq` of the timeline step it stands for (the
 * same seq the shared reducer gives that step), so a bar and a row name the same step.
 *
 * Built incrementally: a live session only appends events, so `update` reads the new
 * ones and leaves the rest alone. Spans are created in event order, and every span
 * starts no earlier than the event before it, so each lane is sorted by start.
 */

export type SpanKind = 'turn' | 'model' | 'tool' | 'command' | 'compaction'
const SPAN_KINDS: ReadonlySet<string> = new Set<SpanKind>(['turn', 'model', 'tool', 'command', 'compaction'])
export type SpanStatus = 'ok' | 'error' | 'rejected' | 'running' | 'waiting'
export type MarkKind =
  'checkpoint' | 'restore' | 'fork' | 'error' | 'finding' | 'verify' | 'unparsed' | 'finish'

export interface Wait {
  start: number
  /** null while the user has not answered. */
  end: number | null
  decision?: string
}

export interface Span {
  seq: number
  kind: SpanKind
  name: string
  status: SpanStatus
  start: number
  /** null while it runs. */
  end: number | null
  /** The seq of the last event that changed it (replay seeks there to show it whole). */
  lastSeq: number
  lane: number
  turn: number
  inputTokens?: number
  outputTokens?: number
  provider?: string
  model?: string
  retries?: number
  /** Approval waits inside a tool call. */
  waits?: Wait[]
  files?: string[]
  /** It changed files (a mutating tool or a checkpoint of it). */
  writes?: boolean
  callId?: string
}

export interface Mark {
  seq: number
  kind: MarkKind
  ts: number
  label: string
  /** Drawn red: an error, a failed check. */
  bad?: boolean
}

/** A bar, or a mark: told apart by their kinds, which never overlap. */
export function isSpan(item: Span | Mark): item is Span {
  return SPAN_KINDS.has(item.kind)
}

type EventOf<T extends StepwiseEvent['type']> = Extract<StepwiseEvent, { type: T }>

/** Lanes, top to bottom: turns, model calls (and compactions), then tool lanes packed. */
export const TURN_LANE = 0
export const MODEL_LANE = 1
export const FIRST_TOOL_LANE = 2
export const MAX_TOOL_LANES = 3

const COMMANDS = new Set(['run_command', 'run_tests', 'run_build', 'run_lint'])
const MAX_FILES = 20

export class SpanModel {
  readonly spans: Span[] = []
  readonly marks: Mark[] = []
  /** Spans and marks in step (seq) order: the bars a keyboard walks through. */
  readonly items: Array<Span | Mark> = []
  /** Spans by lane, each sorted by start. */
  readonly lanes: Span[][] = [[], [], []]
  /** Longest finished span per lane: how far back a view must look for spans reaching into it. */
  readonly laneMaxMs: number[] = [0, 0, 0]
  sessionId: string | null = null
  /** Events read so far, and the last of them (to tell an append from another array). */
  consumed = 0
  private lastEvent: StepwiseEvent | undefined
  firstTs: number | null = null
  lastTs: number | null = null
  /** Bumped on every change, so views can cache on it. */
  version = 0
  maxTokens = 0
  private turn = -1
  private openTurn: Span | null = null
  private readonly openModels = new Map<number, Span>()
  /** A streamed call's earliest possible start: the event before its first delta. */
  private readonly modelFloor = new WeakMap<Span, number>()
  private readonly tools = new Map<string, Span>()
  private readonly toolLaneEnds: Array<number | null> = []
  private readonly bySeq = new Map<number, Span | Mark>()
  /** Event seqs and times, for replay's playhead. */
  readonly eventSeqs: number[] = []
  readonly eventTs: number[] = []

  /** Reads the events not seen yet; false when `events` is not an append to what was read. */
  canContinue(events: readonly StepwiseEvent[]): boolean {
    if (events.length < this.consumed) return false
    return this.consumed === 0 || events[this.consumed - 1] === this.lastEvent
  }

  update(events: readonly StepwiseEvent[]): void {
    if (events.length === this.consumed) return
    for (let i = this.consumed; i < events.length; i++) this.add(events[i])
    this.consumed = events.length
    this.lastEvent = events[events.length - 1]
    this.version++
  }

  find(seq: number): Span | Mark | undefined {
    return this.bySeq.get(seq)
  }

  /** Something is still running: its bar grows with the clock. */
  get live(): boolean {
    return this.openTurn !== null || this.openModels.size > 0 || this.tools.size > 0
  }

  private add(e: StepwiseEvent): void {
    const prev = this.lastTs ?? e.ts
    this.eventSeqs.push(e.seq)
    this.eventTs.push(e.ts)
    if (this.firstTs === null) this.firstTs = e.ts
    this.lastTs = Math.max(prev, e.ts)
    switch (e.type) {
      case 'session.started':
        this.sessionId = e.sessionId
        return
      case 'user.message':
        return this.openTurnAt(e, prev)
      case 'assistant.delta':
      case 'model.retry':
        return this.streamModel(e, prev)
      case 'assistant.message':
        return this.answerModel(e, prev)
      case 'context.compacted':
        return this.compaction(e, prev)
      case 'tool.started':
        return this.startTool(e)
      case 'approval.requested':
        return this.askApproval(e)
      case 'approval.resolved':
        return this.resolveApproval(e)
      case 'tool.finished':
        return this.finishTool(e)
      case 'checkpoint.created':
        return this.checkpoint(e)
      case 'session.finished':
        return this.endRun(e)
      case 'checkpoint.restored':
      case 'session.forked':
      case 'review.finding':
      case 'verify.finished':
      case 'toolcall.unparsed':
      case 'error':
        return this.markOf(e)
      // A proposed change becomes a span when its call starts; the turn lane opens at the user
      // message and closes at session.finished.
      case 'tool.output':
      case 'session.configured':
      case 'change.proposed':
      case 'turn.started':
      case 'turn.finished':
        return
      default: {
        const unreachable: never = e
        return unreachable
      }
    }
  }

  private openTurnAt(e: EventOf<'user.message'>, prev: number): void {
    this.closeTurn(prev, 'ok', e.seq)
    this.turn++
    this.openTurn = this.span({
      seq: e.seq,
      kind: 'turn',
      name: preview(e.text),
      start: e.ts,
      lane: TURN_LANE,
    })
  }

  private streamModel(e: EventOf<'assistant.delta' | 'model.retry'>, prev: number): void {
    let span = this.openModels.get(e.step)
    if (!span) {
      span = this.span({ seq: e.seq, kind: 'model', name: 'model call', start: e.ts, lane: MODEL_LANE })
      span.retries = 0
      this.openModels.set(e.step, span)
      this.modelFloor.set(span, prev)
    }
    if (e.type === 'model.retry') span.retries = (span.retries ?? 0) + 1
    span.lastSeq = e.seq
  }

  private answerModel(e: EventOf<'assistant.message'>, prev: number): void {
    let span = this.openModels.get(e.step)
    this.openModels.delete(e.step)
    // The call began durationMs before its answer (the wait for a first token included), but not
    // before the event that led to it.
    const begun = (floor: number): number => Math.max(floor, e.ts - e.durationMs)
    if (!span)
      span = this.span({
        seq: e.seq,
        kind: 'model',
        name: 'model call',
        start: begun(prev),
        lane: MODEL_LANE,
      })
    else span.start = Math.min(span.start, begun(this.modelFloor.get(span) ?? span.start))
    span.name = `${e.model} · reply ${e.step}`
    span.provider = e.provider
    span.model = e.model
    span.inputTokens = e.usage.inputTokens
    span.outputTokens = e.usage.outputTokens
    this.maxTokens = Math.max(this.maxTokens, e.usage.inputTokens + e.usage.outputTokens)
    this.finish(span, e.ts, 'ok', e.seq)
  }

  private compaction(e: EventOf<'context.compacted'>, prev: number): void {
    // The summary was written between the previous event and this one.
    const span = this.span({
      seq: e.seq,
      kind: 'compaction',
      name: `compaction ${e.beforeTokens} → ${e.afterTokens} tokens`,
      start: prev,
      lane: MODEL_LANE,
    })
    this.finish(span, e.ts, 'ok', e.seq)
  }

  private startTool(e: EventOf<'tool.started'>): void {
    const kind: SpanKind = COMMANDS.has(e.name) ? 'command' : 'tool'
    const summary = summarizeArgs(e.name, e.args)
    const span = this.span({
      seq: e.seq,
      kind,
      name: summary ? `${displayToolName(e.name)} ${summary}` : displayToolName(e.name),
      start: e.ts,
      lane: this.toolLane(e.ts),
    })
    span.writes = e.mutating
    span.callId = e.callId
    const path = argPath(e.args)
    if (path) addFiles(span, [path])
    this.tools.set(e.callId, span)
  }

  private askApproval(e: EventOf<'approval.requested'>): void {
    const span = this.tools.get(e.callId)
    if (!span) return
    span.status = 'waiting'
    ;(span.waits ??= []).push({ start: e.ts, end: null })
    if (e.subject.kind === 'file') addFiles(span, [e.subject.path])
    span.lastSeq = e.seq
  }

  private resolveApproval(e: EventOf<'approval.resolved'>): void {
    const span = this.tools.get(e.callId)
    if (!span) return
    const wait = span.waits?.find((w) => w.end === null)
    if (wait) {
      wait.end = e.ts
      wait.decision = e.decision
    }
    span.status = e.decision === 'reject' ? 'rejected' : 'running'
    span.lastSeq = e.seq
  }

  private finishTool(e: EventOf<'tool.finished'>): void {
    const span = this.tools.get(e.callId)
    if (!span) return
    this.tools.delete(e.callId)
    if (e.reads)
      addFiles(
        span,
        e.reads.map((r) => r.path),
      )
    this.finish(span, e.ts, span.status === 'rejected' ? 'rejected' : e.ok ? 'ok' : 'error', e.seq)
    const lane = span.lane - FIRST_TOOL_LANE
    if (this.toolLaneEnds[lane] === null) this.toolLaneEnds[lane] = e.ts
  }

  private checkpoint(e: EventOf<'checkpoint.created'>): void {
    const span = e.callId ? this.findTool(e.callId) : undefined
    if (span) {
      addFiles(span, e.paths)
      span.writes = true
    }
    this.mark(
      e,
      'checkpoint',
      `checkpoint · ${plural(e.paths.length, 'file')}${e.agentFiles ? ` · agent files changed unasked: ${e.agentFiles.join(', ')}` : ''}`,
    )
  }

  /** The events that are a mark on the time line and nothing more. */
  private markOf(
    e: EventOf<
      | 'checkpoint.restored'
      | 'session.forked'
      | 'review.finding'
      | 'verify.finished'
      | 'toolcall.unparsed'
      | 'error'
    >,
  ): void {
    switch (e.type) {
      case 'checkpoint.restored':
        return this.mark(e, 'restore', `${e.kind} · ${plural(e.paths.length, 'file')} restored`)
      case 'session.forked':
        return this.mark(
          e,
          'fork',
          e.atStep === undefined ? `forked at event ${e.atSeq}` : `forked at step ${e.atStep}`,
        )
      case 'review.finding':
        return this.mark(e, 'finding', `${e.finding.severity} finding · ${e.finding.file}:${e.finding.line}`)
      case 'verify.finished':
        return this.mark(e, 'verify', e.passed ? 'checks passed' : 'checks failed', !e.passed)
      case 'toolcall.unparsed':
        return this.mark(e, 'unparsed', 'tool call not understood', true)
      case 'error':
        return this.mark(e, 'error', e.message, true)
    }
  }

  private endRun(e: EventOf<'session.finished'>): void {
    const status: SpanStatus = e.reason === 'error' ? 'error' : e.reason === 'interrupted' ? 'rejected' : 'ok'
    // Whatever was still open ended with the run.
    for (const span of this.openModels.values())
      this.finish(span, e.ts, status === 'ok' ? 'ok' : status, e.seq)
    this.openModels.clear()
    for (const span of this.tools.values()) this.finish(span, e.ts, status === 'ok' ? 'ok' : status, e.seq)
    this.tools.clear()
    this.toolLaneEnds.fill(e.ts)
    this.closeTurn(e.ts, status, e.seq)
    this.mark(e, 'finish', `turn ended: ${e.reason}`, e.reason === 'error')
  }

  private span(init: Pick<Span, 'seq' | 'kind' | 'name' | 'start' | 'lane'>): Span {
    // A literal, not a spread: a session's worth of spans is built on open, and spreads cost there.
    const span: Span = {
      seq: init.seq,
      kind: init.kind,
      name: init.name,
      status: 'running',
      start: init.start,
      end: null,
      lastSeq: init.seq,
      lane: init.lane,
      turn: this.turn,
    }
    this.spans.push(span)
    while (this.lanes.length <= span.lane) {
      this.lanes.push([])
      this.laneMaxMs.push(0)
    }
    this.lanes[span.lane].push(span)
    this.bySeq.set(span.seq, span)
    this.items.push(span)
    return span
  }

  private finish(span: Span, end: number, status: SpanStatus, seq: number): void {
    span.end = Math.max(end, span.start)
    span.status = status
    span.lastSeq = seq
    this.laneMaxMs[span.lane] = Math.max(this.laneMaxMs[span.lane], span.end - span.start)
  }

  private closeTurn(end: number, status: SpanStatus, seq: number): void {
    if (!this.openTurn) return
    this.finish(this.openTurn, end, status, seq)
    this.openTurn = null
  }

  /** A mark at the event `at`. */
  private mark(at: { seq: number; ts: number }, kind: MarkKind, label: string, bad = false): void {
    const { seq, ts } = at
    const mark: Mark = { seq, kind, ts, label }
    if (bad) mark.bad = true
    this.marks.push(mark)
    this.bySeq.set(seq, mark)
    if (kind !== 'finish') this.items.push(mark)
  }

  /** The first tool lane free at `ts` (parallel calls stack); the last one when all are busy. */
  private toolLane(ts: number): number {
    let i = this.toolLaneEnds.findIndex((end) => end !== null && end <= ts)
    if (i < 0) i = this.toolLaneEnds.length < MAX_TOOL_LANES ? this.toolLaneEnds.length : MAX_TOOL_LANES - 1
    this.toolLaneEnds[i] = null
    return FIRST_TOOL_LANE + i
  }

  private findTool(callId: string): Span | undefined {
    const open = this.tools.get(callId)
    if (open) return open
    // Checkpoints follow their call's finish: look back over the last few tool spans.
    for (let i = this.spans.length - 1, n = 0; i >= 0 && n < 16; i--) {
      const s = this.spans[i]
      if (s.kind === 'tool' || s.kind === 'command') {
        n++
        if (s.callId === callId) return s
      }
    }
    return undefined
  }
}

function preview(text: string): string {
  const line = text.trim().split('\n')[0]
  return line.length > 60 ? `${line.slice(0, 59)}…` : line || '(empty message)'
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

function argPath(args: unknown): string | null {
  if (!isRecord(args)) return null
  const path = args.path
  return typeof path === 'string' && path ? path : null
}

function addFiles(span: Span, paths: readonly string[]): void {
  const files = (span.files ??= [])
  for (const p of paths) if (files.length < MAX_FILES && !files.includes(p)) files.push(p)
}

/** The events as spans: a fresh model, or `prev` carried on when `events` only appended to it. */
export function spansOf(events: readonly StepwiseEvent[], prev?: SpanModel): SpanModel {
  const model = prev && prev.canContinue(events) ? prev : new SpanModel()
  model.update(events)
  return model
}
