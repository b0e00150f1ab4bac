import { snapshotAtStep } from './restore-history'
import {
  PROTOCOL_VERSION,
  type ApprovalPolicy,
  type EventDraft,
  type EventOf,
  type ForkPart,
  type ProviderId,
  type StepwiseEvent,
} from '../../shared/protocol'
import { checkForkPoint, continuationMessage, resumeBundle } from '../agent/resume'
import { createSandbox } from '../containment/sandbox'
import { snapshotterFor, startSession, type SessionSetup, type StartedSession } from '../session/start'
import type { Store } from '../store/types'
import { addWorktree, writeSnapshotInto } from './fork-worktree'
import { restoreSnapshot, type RestoreOutcome, type RestoreTarget } from './restore'
import { stepNumberAfter, stepNumberAt, stepsOf } from '../../shared/steps'

/**
 * Forking a session at step N: a new session, "Fork of <parent's title>", whose history
 * is a copy of the parent's up to N and whose files are as they were at N — in the same
 * folder (the present is checkpointed first, so the fork can be undone) or in a git
 * worktree. `what` narrows it: the conversation alone (the files stay as they are now),
 * or the files alone (a new chat, with no history, on the files as at N).
 *
 * The child's events: `session.started` (with `parent`), the parent's events up to N
 * renumbered, each at the time it first happened (its own `session.started`, forks and
 * `session.finished` left out), then a `checkpoint.restored` of kind `fork` putting the
 * files at N. Copying makes the child whole on its own: replay, export and the transcript
 * of a continued run (agent/resume.ts) read it alone. The parent gets a `session.forked`.
 * N is an event seq here; the step number the user chose (shared/steps.ts) is recorded
 * beside it and names it in every message.
 */

/**
 * Puts the child's files (in its folder, the parent's) back to a snapshot,
 * checkpointing the present first: restore.ts's engine unless a test injects one.
 */
export type RestoreInPlace = (store: Store, target: RestoreTarget) => Promise<RestoreOutcome>

/**
 * The user confirmed the fork in place (the CLI asks, or --yes): every file
 * changed since N is overwritten, those the user changed outside the session
 * too — all of them are in the checkpoint of the present, which an undo restores.
 */
const restoreConfirmed: RestoreInPlace = (store, target) => restoreSnapshot(store, target, { confirm: true })

export interface ForkOptions {
  sessionId: string
  /** The parent's step (event seq) to fork at. */
  atSeq: number
  /**
   * Where the files go: the parent's folder (after the caller's confirmation) or a new git
   * worktree (at `dir`, else next to the project: defaultWorktreeDir).
   */
  files: { kind: 'in-place'; restore?: RestoreInPlace } | { kind: 'worktree'; dir?: string }
  /** What the child gets: history and files (default), the history alone, or the files alone. */
  what?: ForkPart
  /** The model the child runs on (a re-run); the parent's by default. */
  model?: { provider: ProviderId; model: string; baseUrl?: string }
  policy?: ApprovalPolicy
  maxSteps?: number
  emit?: (event: StepwiseEvent) => void
}

export interface ForkResult {
  sessionId: string
  parent: { sessionId: string; seq: number; step: number }
  title: string
  what: ForkPart
  /** The child's project folder: the parent's, or the worktree's. */
  repo: string
  files: 'in-place' | 'worktree'
  /** The snapshot the files were put at (the state at N); absent when only the conversation was forked. */
  snapshotId?: number
  /** The present before the fork, checkpointed (in place), or the worktree at HEAD. */
  savedSnapshotId?: number
  /** The parent's task, which a continued run carries on. */
  task: string
}

/** A fork needs a session that exists and a step the model can continue from. */
export class ForkError extends Error {
  override name = 'ForkError'
}

/**
 * Checks that a fork of `what` can start right after `atSeq` and returns the step number it is;
 * refusals name steps by number (InvalidStepError). The files alone carry no history, so any
 * step will do; a conversation must be at a point the model can continue from.
 */
export function checkForkAt(events: readonly StepwiseEvent[], atSeq: number, what: ForkPart): number {
  const steps = stepsOf(events)
  // A point inside a step is named by the step it belongs to; a step's end (or the start) by its own number.
  const name = (seq: number) =>
    `step ${steps.some((s) => s.seq === seq) || seq === events[0]?.seq ? stepNumberAfter(steps, seq) : stepNumberAt(steps, seq)}`
  if (what !== 'files') checkForkPoint(events, atSeq, { name, points: steps.map((s) => s.seq) })
  else if (!events.some((e) => e.seq === atSeq)) checkForkPoint(events, atSeq) // out of range
  return stepNumberAfter(steps, atSeq)
}

/** Events of the parent not copied into the child: they describe the parent itself. */
const NOT_COPIED = new Set<StepwiseEvent['type']>(['session.started', 'session.forked', 'session.finished'])

export async function forkSession(store: Store, opts: ForkOptions): Promise<ForkResult> {
  const parent = store.getSession(opts.sessionId)
  if (!parent) throw new ForkError(`no session ${opts.sessionId}.`)
  const events = store.listEvents(parent.id)
  const what = opts.what ?? 'both'
  const atStep = checkForkAt(events, opts.atSeq, what)
  const started = events[0]
  if (started?.type !== 'session.started')
    throw new Error(`session ${parent.id} does not begin with session.started`)
  const snapshotId = snapshotAtStep(events, opts.atSeq)
  if (snapshotId === undefined)
    throw new ForkError(`session ${parent.id} has no snapshot of its files to fork from.`)

  const files = opts.files
  if (files.kind === 'worktree' && what === 'conversation')
    throw new ForkError(
      'a fork of the conversation alone keeps the files where they are: it needs no worktree.',
    )
  const repo = files.kind === 'worktree' ? await addWorktree(parent.repo, files.dir) : parent.repo
  const title = forkTitle(parent.title)
  const child = store.createSession({
    repo,
    title,
    provider: opts.model?.provider ?? parent.provider,
    model: opts.model?.model ?? parent.model,
    parentId: parent.id,
    forkSeq: opts.atSeq,
  })
  const record = (draft: EventDraft, ts?: number): StepwiseEvent => {
    const event = store.appendEvent(child.id, draft, { ts })
    opts.emit?.(event)
    return event
  }
  record(
    {
      type: 'session.started',
      protocolVersion: PROTOCOL_VERSION,
      repo,
      provider: opts.model?.provider ?? started.provider,
      model: opts.model?.model ?? started.model,
      baseUrl: opts.model ? opts.model.baseUrl : started.baseUrl,
      approvalPolicy: opts.policy ?? started.approvalPolicy,
      maxSteps: opts.maxSteps ?? started.maxSteps,
      // The child's history begins where the parent's did and its copied checkpoints lead to N;
      // a fork of the files alone begins at N.
      baselineSnapshotId: what === 'files' ? snapshotId : started.baselineSnapshotId,
      parent: { sessionId: parent.id, seq: opts.atSeq, step: atStep },
    },
    what === 'files' ? undefined : started.ts,
  )
  let lastSeq = 1
  if (what !== 'files') for (const [e, ts] of copiedHistory(events, opts.atSeq)) lastSeq = record(e, ts).seq

  // The child stays idle (as the store creates it) until a continued run sets its outcome.
  const target: ForkTarget = { sessionId: child.id, root: repo, snapshotId, toSeq: lastSeq }
  const restored =
    what === 'conversation'
      ? undefined
      : await restoreForkFiles(store, opts.files, target, { atStep, record })
  if (restored) opts.emit?.(restored)
  store.appendEvent(parent.id, {
    type: 'session.forked',
    childSessionId: child.id,
    atSeq: opts.atSeq,
    atStep,
  })
  return {
    sessionId: child.id,
    parent: { sessionId: parent.id, seq: opts.atSeq, step: atStep },
    title,
    what,
    repo,
    files: opts.files.kind,
    ...(restored ? { snapshotId: restored.snapshotId, savedSnapshotId: restored.savedSnapshotId } : {}),
    task: events.find((e) => e.type === 'user.message')?.text ?? parent.title,
  }
}

/**
 * The parent's events up to N as drafts for the child. A stopped session's calls
 * that never ran were answered by the loop without an event; the copy records
 * those answers, so the child's history is consistent without its `session.finished`.
 */
function copiedHistory(events: readonly StepwiseEvent[], atSeq: number): Array<[EventDraft, number]> {
  const drafts: Array<[EventDraft, number]> = []
  const open = new Map<string, string>()
  for (const e of events) {
    if (e.seq > atSeq) break
    if (e.type === 'assistant.message') for (const c of e.toolCalls) open.set(c.id, c.name)
    if (e.type === 'tool.finished') open.delete(e.callId)
    if (e.type === 'session.finished') {
      for (const [callId, name] of open) {
        const result = { ok: false, error: 'Not run: the user interrupted the session.' }
        drafts.push([{ type: 'tool.finished', callId, name, ok: false, result, durationMs: 0 }, e.ts])
      }
      open.clear()
    }
    if (NOT_COPIED.has(e.type)) continue
    const { sessionId: _s, seq: _q, ts, ...draft } = e
    drafts.push([draft as EventDraft, ts])
  }
  return drafts
}

/** Where a fork's files go back to step N: the child, its folder, the snapshot at N, the child's last seq. */
interface ForkTarget {
  sessionId: string
  root: string
  snapshotId: number
  toSeq: number
}

/**
 * Puts the fork's files back to step N, in the parent's folder or the new worktree. A refused
 * restore in place is recorded in the child (an error event, status `error`) and thrown.
 */
async function restoreForkFiles(
  store: Store,
  files: ForkOptions['files'],
  target: ForkTarget,
  child: { atStep: number; record: (draft: EventDraft) => StepwiseEvent },
): Promise<EventOf<'checkpoint.restored'>> {
  if (files.kind === 'worktree') return restoreIntoWorktree(store, target)
  const { sessionId, snapshotId, toSeq } = target
  const outcome = await (files.restore ?? restoreConfirmed)(store, {
    sessionId,
    snapshotId,
    kind: 'fork',
    toSeq,
  })
  if (outcome.status === 'restored') return outcome.event
  const message =
    outcome.status === 'conflict'
      ? `files changed outside the session would be overwritten: ${outcome.conflicts.join(', ')}`
      : outcome.message
  child.record({
    type: 'error',
    code: 'fork-failed',
    message: `The files could not be put back to step ${child.atStep}: ${message}`,
  })
  store.setSessionStatus(sessionId, 'error')
  throw new ForkError(`the files could not be put back to step ${child.atStep}: ${message}`)
}

/**
 * The worktree starts at HEAD (checkpointed, so an undo in the child brings it
 * back), then holds the snapshot's files; the restore is recorded like one in place.
 */
async function restoreIntoWorktree(
  store: Store,
  { sessionId, root, snapshotId, toSeq }: ForkTarget,
): Promise<EventOf<'checkpoint.restored'>> {
  const snapshotter = snapshotterFor(store, await createSandbox(root))
  const saved = await snapshotter.takeSnapshot({ sessionId, label: 'fork: worktree at HEAD' })
  await writeSnapshotInto(store, snapshotter, snapshotId, root)
  // Taken so the child's next checkpoint in this folder diffs against the state at N, not an empty tree.
  const after = await snapshotter.takeSnapshot({ sessionId, label: `fork: step ${toSeq}` })
  const event = store.appendEvent(sessionId, {
    type: 'checkpoint.restored',
    kind: 'fork',
    snapshotId,
    toSeq,
    savedSnapshotId: saved.info.id,
    paths: pathsOf(snapshotter.diffSnapshots(saved.info.id, after.info.id)),
  })
  if (event.type !== 'checkpoint.restored')
    throw new Error(`appendEvent stored a ${event.type} for a checkpoint.restored`)
  return event
}

/** "Fork of <title>": a fork of a fork names its own parent, so the list tells them apart. */
export function forkTitle(parentTitle: string): string {
  return `Fork of ${parentTitle}`
}

function pathsOf(c: { added: string[]; modified: string[]; deleted: string[] }): string[] {
  return [...c.added, ...c.modified, ...c.deleted].sort()
}

/**
 * Re-run from N: continues a fork's agent loop (on the model its `session.started`
 * names, given in `setup.provider`) with the transcript rebuilt from its copied
 * history. Nothing is added unless the model would have nothing to answer: the task
 * when N precedes it, "Continue from here." after a final answer (resume.ts).
 */
export async function continueFork(
  store: Store,
  fork: Pick<ForkResult, 'sessionId' | 'repo' | 'task'>,
  setup: Omit<SessionSetup, 'repo' | 'resume'>,
): Promise<StartedSession> {
  return startSession(store, {
    ...setup,
    repo: fork.repo,
    task: fork.task,
    resume: { sessionId: fork.sessionId, message: forkContinuation(store, fork) },
  })
}

/**
 * The message a fork's re-run starts its turn with, if the model would otherwise have nothing
 * to answer (continuationMessage); undefined: the run goes on from the stored history as it is.
 */
export function forkContinuation(
  store: Store,
  fork: Pick<ForkResult, 'sessionId' | 'task'>,
): string | undefined {
  return continuationMessage(resumeBundle(store.listEvents(fork.sessionId)).transcript, fork.task)
}
