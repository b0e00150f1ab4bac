import type { StepwiseEvent } from '../../shared/protocol'

/**
 * What a session's events say about the project's files: which snapshot they are
 * at (the head), which snapshot each step left them at, and what an undo would
 * reverse. Derived from the events alone, so every host computes the same answer.
 */

/** One change to the project an undo can reverse: the files went from `before` to `after`. */
export interface UndoableChange {
  /** The event that made it (a checkpoint.created, or a rewind/fork checkpoint.restored). */
  seq: number
  before: number
  after: number
  /** It changed no file (a checkpoint after a command that wrote nothing): undo skips it. */
  empty: boolean
}

export interface SessionTimeline {
  baselineSnapshotId: number | undefined
  /** The snapshot the session last left the files at (baseline, a checkpoint, or a restore's target). */
  headSnapshotId: number | undefined
  /** Changes an undo would reverse, oldest first; the last is reversed next. */
  undoable: UndoableChange[]
  firstSeq: number
  lastSeq: number
}

/**
 * Walks the events in order. A checkpoint, a rewind and a fork-in-place each push
 * a change; an undo pops the changes it skipped and the one it reversed, so an
 * undo right after a rewind brings back the files from before the rewind, and a
 * second undo goes on to the checkpoint before that.
 */
export function readTimeline(events: readonly StepwiseEvent[], uptoSeq = Infinity): SessionTimeline {
  const t: SessionTimeline = {
    baselineSnapshotId: undefined,
    headSnapshotId: undefined,
    undoable: [],
    firstSeq: events[0]?.seq ?? 0,
    lastSeq: events.at(-1)?.seq ?? 0,
  }
  for (const e of events) {
    if (e.seq > uptoSeq) break
    if (e.type === 'session.started') {
      t.baselineSnapshotId = e.baselineSnapshotId
      t.headSnapshotId = e.baselineSnapshotId
    } else if (e.type === 'checkpoint.created') {
      if (t.headSnapshotId !== undefined)
        t.undoable.push({ seq: e.seq, before: t.headSnapshotId, after: e.snapshotId, empty: !e.paths.length })
      t.headSnapshotId = e.snapshotId
    } else if (e.type === 'checkpoint.restored') {
      if (e.kind === 'undo') {
        popSkippingEmpty(t.undoable)
      } else {
        t.undoable.push({
          seq: e.seq,
          before: e.savedSnapshotId,
          after: e.snapshotId,
          empty: !e.paths.length,
        })
      }
      t.headSnapshotId = e.snapshotId
    }
  }
  return t
}

/** Drops the empty changes on top and the real one under them; returns that one. */
export function popSkippingEmpty(stack: UndoableChange[]): UndoableChange | undefined {
  while (stack.length && stack.at(-1)!.empty) stack.pop()
  return stack.pop()
}

/** The change an undo reverses now, or undefined when there is none left. */
export function nextUndo(timeline: SessionTimeline): UndoableChange | undefined {
  return popSkippingEmpty([...timeline.undoable])
}

/**
 * The snapshot the files were at right after event `seq`: the last checkpoint or
 * restore at or before it, else the baseline (so the seq of session.started is the
 * state the session began from). Undefined when the session has no snapshots.
 */
export function snapshotAtStep(events: readonly StepwiseEvent[], seq: number): number | undefined {
  // A tool's change is on disk when its tool.finished is recorded; its checkpoint.created
  // follows. So a step at (or after) that tool.finished, but before the checkpoint,
  // already shows the change: take the checkpoint that records it.
  const finishedAt = new Map<string, number>()
  for (const e of events) {
    if (e.type === 'tool.finished') finishedAt.set(e.callId, e.seq)
    if (e.seq <= seq) continue
    if (e.type === 'checkpoint.created' && e.callId !== undefined) {
      const finished = finishedAt.get(e.callId)
      if (finished !== undefined && finished <= seq) return e.snapshotId
    }
    if (e.type === 'assistant.message' || e.type === 'checkpoint.created' || e.type === 'checkpoint.restored')
      break
  }
  return readTimeline(events, seq).headSnapshotId
}
