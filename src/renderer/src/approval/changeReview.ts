import type { FileChangeKind, StepwiseEvent } from '../../../shared/protocol'

/*
 * One review of a model step's file changes (its `change.proposed` events): every file with where it stands,
 * and which is being asked now. The core asks for each change in call order; this says, from the
 * events alone, what the review shows. Pure, so it is tested without a DOM.
 */

/** `asking`: its diff is below, per hunk; `next`: not asked yet; the rest: answered (or not run). */
export type ChangeState = 'asking' | 'next' | 'accepted' | 'edited' | 'partial' | 'rejected' | 'not-run'

export interface ReviewFile {
  callId: string
  path: string
  change: FileChangeKind
  /** The preview diff; absent when an earlier change of the step touches the same file. */
  diff?: string
  follows: boolean
  added: number
  removed: number
  state: ChangeState
}

export interface ChangeReview {
  files: ReviewFile[]
  /** 0-based position of the change being asked. */
  index: number
}

/** Lines added and removed by a unified diff (its `+++`/`---` headers left out). */
export function diffCounts(diff: string | undefined): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const line of (diff ?? '').split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue
    if (line.startsWith('+')) added++
    else if (line.startsWith('-')) removed++
  }
  return { added, removed }
}

const ANSWERED: Record<string, ChangeState> = {
  accept: 'accepted',
  always: 'accepted',
  edited: 'edited',
  partial: 'partial',
  reject: 'rejected',
  regenerate: 'rejected',
}

/** The review the waiting `callId` belongs to, or null when its step announced no changes. */
export function reviewOf(events: readonly StepwiseEvent[], callId: string): ChangeReview | null {
  // The step's announcements are recorded together, one per change, before the first is asked.
  let at = -1
  for (let i = events.length - 1; i >= 0 && at < 0; i--) {
    const e = events[i]
    if (e.type === 'change.proposed' && e.change.callId === callId) at = i - e.index
  }
  if (at < 0) return null
  const proposed: Proposed[] = []
  for (let i = at; i < events.length; i++) {
    const e = events[i]
    if (e.type !== 'change.proposed' || e.index !== proposed.length) break
    proposed.push(e)
  }
  const first = proposed[0]
  if (!first || proposed.length !== first.count) return null
  const ids = new Set(proposed.map((p) => p.change.callId))
  const answered = new Map<string, ChangeState>()
  for (let i = at + proposed.length; i < events.length; i++) {
    const e = events[i]
    if (e.type !== 'approval.resolved' && e.type !== 'tool.finished') continue
    if (!ids.has(e.callId)) continue
    if (e.type === 'approval.resolved') answered.set(e.callId, ANSWERED[e.decision] ?? 'accepted')
    // A change that ran unasked ("always" on an earlier one) was applied; one that failed was not.
    else if (!answered.has(e.callId)) answered.set(e.callId, e.ok ? 'accepted' : 'not-run')
  }
  const files = proposed.map(({ change: c }): ReviewFile => ({
    callId: c.callId,
    path: c.path,
    change: c.change,
    ...(c.diff !== undefined ? { diff: c.diff } : {}),
    follows: c.follows === true,
    ...diffCounts(c.diff),
    state: c.callId === callId ? 'asking' : (answered.get(c.callId) ?? 'next'),
  }))
  return { files, index: files.findIndex((f) => f.callId === callId) }
}

type Proposed = Extract<StepwiseEvent, { type: 'change.proposed' }>

/** The changes not asked yet. */
export function notAskedYet(review: ChangeReview): string[] {
  return review.files.filter((f) => f.state === 'next').map((f) => f.callId)
}

/**
 * The changes not asked yet that "accept all" and "reject all" answer ahead: those the user has not
 * already chosen for on their own row (that Reject or Accept stands; `chosen` says which have one).
 */
export function answeredByAll(review: ChangeReview, chosen: (callId: string) => boolean): string[] {
  return notAskedYet(review).filter((id) => !chosen(id))
}
