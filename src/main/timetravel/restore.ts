import fs from 'node:fs'
import path from 'node:path'
import type { StepwiseEvent } from '../../shared/protocol'
import { createSandbox } from '../containment/sandbox'
import { snapshotterFor } from '../session/start'
import { BlobError, createBlobStore } from '../snapshot/blobs'
import type { Snapshotter } from '../snapshot/snapshotter'
import type { SnapshotFile, Store } from '../store/types'
import {
  applyPlan,
  finishJournal,
  insertJournal,
  recoverInterruptedRestores,
  verifyBlobs,
  type FileHook,
  type RestoreKind,
  type RestorePlan,
} from './restore-apply'
import { nextUndo, readTimeline, snapshotAtStep } from './restore-history'
import { snapshotTablesOf } from '../store/snapshot-tables'

export { recoverInterruptedRestores, type RecoveredRestore, type RestoreKind } from './restore-apply'
export { readTimeline, snapshotAtStep, type SessionTimeline } from './restore-history'

/**
 * Undo and rewind (issue 4): put a session's project files back as they were at
 * one of its snapshots. The present is always checkpointed first (so every
 * restore can itself be undone), files the user changed outside the session are
 * never overwritten without `confirm`, every blob is verified before the first
 * write, and the writes are journalled (restore-apply.ts) so a crash mid-way is
 * finished on the next start.
 */

export interface RestoreOptions {
  /** Overwrite files changed outside the session (the caller asked the user). */
  confirm?: boolean
  /**
   * Restore although a live process runs the session. A crashed or killed one needs no
   * force: its session reads as interrupted (store/liveness.ts).
   */
  force?: boolean
  /** Test hook: after each file written or deleted. */
  onFile?: FileHook
  /** The process ends after this restore (the CLI): see snapshotterFor. */
  oneShot?: boolean
}

export type RestoreOutcome =
  | {
      status: 'restored'
      event: Extract<StepwiseEvent, { type: 'checkpoint.restored' }>
      snapshotId: number
      savedSnapshotId: number
      toSeq?: number
      written: string[]
      deleted: string[]
    }
  /** Files changed outside the session would be overwritten or deleted; nothing was touched. */
  | { status: 'conflict'; conflicts: string[]; snapshotId: number; savedSnapshotId: number }
  /** Nothing to do (no change left to undo); nothing was touched. */
  | { status: 'nothing'; message: string }
  /** Not done, with a message in the user's words; `usage` marks a mistake in the request (a step out of range). */
  | { status: 'refused'; reason: 'running' | 'usage' | 'no-snapshots' | 'failed'; message: string }

export interface RestoreTarget {
  sessionId: string
  snapshotId: number
  kind: RestoreKind
  toSeq?: number
}

/** Undo the session's last change to the project (or its last restore). */
export async function undoSession(
  store: Store,
  sessionId: string,
  opts: RestoreOptions = {},
): Promise<RestoreOutcome> {
  const session = store.getSession(sessionId)
  if (!session) return refused('usage', `No session ${sessionId}.`)
  const change = nextUndo(readTimeline(store.listEvents(session.id)))
  if (!change)
    return { status: 'nothing', message: `Nothing to undo: session ${session.id} changed no file.` }
  return restoreSnapshot(store, { sessionId, snapshotId: change.before, kind: 'undo' }, opts)
}

/** Put the files back as they were right after event `toSeq` of the session. */
export async function rewindSession(
  store: Store,
  sessionId: string,
  toSeq: number,
  opts: RestoreOptions = {},
): Promise<RestoreOutcome> {
  const session = store.getSession(sessionId)
  if (!session) return refused('usage', `No session ${sessionId}.`)
  const events = store.listEvents(session.id)
  const first = events[0]?.seq ?? 0
  const last = events.at(-1)?.seq ?? 0
  if (!Number.isInteger(toSeq) || toSeq < first || toSeq > last)
    return refused(
      'usage',
      `Step ${toSeq} is not in session ${session.id}: its steps are ${first} to ${last}.`,
    )
  const snapshotId = snapshotAtStep(events, toSeq)
  if (snapshotId === undefined)
    return refused('no-snapshots', `Session ${session.id} has no snapshot of the project to rewind to.`)
  return restoreSnapshot(store, { sessionId, snapshotId, kind: 'rewind', toSeq }, opts)
}

function refused(reason: Extract<RestoreOutcome, { status: 'refused' }>['reason'], message: string) {
  return { status: 'refused' as const, reason, message }
}

const sameFile = (a: SnapshotFile | undefined, b: SnapshotFile | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.hash === b.hash && a.mode === b.mode)

/**
 * The engine under undo, rewind and (for the fork engineer) fork-in-place: restore
 * the session's project to `snapshotId`, recording `checkpoint.restored` on the session.
 */
export async function restoreSnapshot(
  store: Store,
  target: RestoreTarget,
  opts: RestoreOptions = {},
): Promise<RestoreOutcome> {
  const session = store.getSession(target.sessionId)
  if (!session) return refused('usage', `No session ${target.sessionId}.`)
  if (session.status === 'running' && !opts.force) {
    return refused(
      'running',
      `Session ${session.id} is running a turn in a live Stepwise process; stop it first ` +
        `(a session whose process is gone reads as interrupted and needs no --force).`,
    )
  }
  let root: string
  try {
    root = fs.realpathSync(session.repo)
  } catch {
    return refused('failed', `The project folder ${session.repo} of session ${session.id} is gone.`)
  }
  // A restore a crash cut short comes first: the project must be at a known state.
  for (const r of recoverInterruptedRestores(store, { root }))
    if (r.error) return refused('failed', r.message)

  const sandbox = await createSandbox(root)
  const snapshotter = snapshotterFor(store, sandbox, { oneShot: opts.oneShot })
  const targetInfo = snapshotter.getSnapshot(target.snapshotId)
  if (!targetInfo) return refused('failed', `Snapshot ${target.snapshotId} is not in the store.`)
  if (targetInfo.root !== sandbox.root)
    return refused(
      'failed',
      `Snapshot ${target.snapshotId} is of ${targetInfo.root}, not of this project (${sandbox.root}).`,
    )
  const head = readTimeline(store.listEvents(session.id)).headSnapshotId

  const saved = await snapshotter.takeSnapshot({ sessionId: session.id, label: 'before-restore' })
  const savedSnapshotId = saved.info.id
  let plan: RestorePlan
  let conflicts: string[]
  try {
    ;({ plan, conflicts } = planRestore(snapshotter, sandbox.root, {
      present: savedSnapshotId,
      target: target.snapshotId,
      head,
    }))
  } catch (err) {
    if (err instanceof BlobError) return refused('failed', `${err.message} Nothing was changed.`)
    throw err
  }
  if (conflicts.length && !opts.confirm)
    return { status: 'conflict', conflicts, snapshotId: target.snapshotId, savedSnapshotId }

  let content: ReturnType<typeof verifyBlobs>
  try {
    content = verifyBlobs(createBlobStore(snapshotTablesOf(store).blobs), plan)
  } catch (err) {
    if (err instanceof BlobError) return refused('failed', `${err.message} Nothing was changed.`)
    throw err
  }
  const entry = {
    sessionId: session.id,
    root: sandbox.root,
    kind: target.kind,
    snapshotId: target.snapshotId,
    savedSnapshotId,
    toSeq: target.toSeq,
    plan,
  }
  const id = insertJournal(store, entry)
  // A failure here leaves the journal pending: the next start (or restore) finishes it.
  applyPlan(sandbox.root, plan, content, opts.onFile)
  const event = finishJournal(store, { ...entry, id })
  if (event.type !== 'checkpoint.restored') throw new Error('finishJournal returned another event')
  return {
    status: 'restored',
    event,
    snapshotId: target.snapshotId,
    savedSnapshotId,
    ...(target.toSeq === undefined ? {} : { toSeq: target.toSeq }),
    written: plan.write.map((w) => w.path),
    deleted: plan.delete,
  }
}

/**
 * What to write and delete to go from the present to the target, and which of
 * those paths the user changed since the session's head (the files differ from
 * what the session last left, or a file the listing does not show is in the way).
 */
export function planRestore(
  snapshotter: Snapshotter,
  root: string,
  ids: { present: number; target: number; head: number | undefined },
): { plan: RestorePlan; conflicts: string[] } {
  const present = snapshotter.readManifest(ids.present).byPath
  const targetFiles = snapshotter.readManifest(ids.target).files
  const head = ids.head === undefined ? present : snapshotter.readManifest(ids.head).byPath
  const plan: RestorePlan = { write: [], delete: [] }
  const conflicts: string[] = []
  const inTarget = new Set<string>()
  for (const f of targetFiles) {
    inTarget.add(f.path)
    const now = present.get(f.path)
    if (sameFile(now, f)) continue
    plan.write.push({ path: f.path, hash: f.hash, mode: f.mode })
    if (!sameFile(now, head.get(f.path)) || (!now && fs.existsSync(path.join(root, f.path))))
      conflicts.push(f.path)
  }
  for (const [p, now] of present) {
    if (inTarget.has(p)) continue
    plan.delete.push(p)
    if (!sameFile(now, head.get(p))) conflicts.push(p)
  }
  plan.delete.sort()
  conflicts.sort()
  return { plan, conflicts }
}
