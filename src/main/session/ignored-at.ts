import type { StepwiseEvent } from '../../shared/protocol'

/**
 * The hash under which the bytes of `path` — a file a command changed under an ignored folder,
 * which no snapshot holds — were kept as of step `seq`: from the newest checkpoint at or before it
 * that records ignored folders (each such record is the net state since the session started).
 * Undefined when the file was not changed there, was deleted, or was too large to keep.
 */
export function keptHashAt(events: readonly StepwiseEvent[], seq: number, path: string): string | undefined {
  const entry = ignoredRecordAt(events, seq).find((c) => c.path === path)
  return entry?.stored && entry.sha256 ? entry.sha256 : undefined
}

/** The paths of the files kept as of step `seq` (see keptHashAt), sorted. */
export function keptPathsAt(events: readonly StepwiseEvent[], seq: number): string[] {
  return ignoredRecordAt(events, seq)
    .filter((c) => c.stored && c.sha256)
    .map((c) => c.path)
}

/**
 * The newest record of ignored folders as of step `seq` (all events by default): the net state
 * since the session started; empty before the first.
 */
export function ignoredRecordAt(
  events: readonly StepwiseEvent[],
  seq = Infinity,
): NonNullable<Extract<StepwiseEvent, { type: 'checkpoint.created' }>['ignored']> {
  let latest: Extract<StepwiseEvent, { type: 'checkpoint.created' }>['ignored']
  // As in snapshotAtStep: a command's change is on disk at its tool.finished, and its checkpoint
  // (recorded just after) already counts at that step.
  const finishedAt = new Map<string, number>()
  for (const e of events) {
    if (e.type === 'tool.finished') finishedAt.set(e.callId, e.seq)
    if (e.type !== 'checkpoint.created') {
      if (e.seq > seq && e.type !== 'tool.finished') break
      continue
    }
    const finished = e.callId === undefined ? undefined : finishedAt.get(e.callId)
    if (e.seq > seq && (finished === undefined || finished > seq)) break
    if (e.ignored) latest = e.ignored
  }
  return latest ?? []
}
