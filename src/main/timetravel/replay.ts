import fs from 'node:fs'
import path from 'node:path'
import type { StepwiseEvent } from '../../shared/protocol'
import { unifiedDiff } from '../../shared/diff'
import { reduceEvent, emptySessionView, type SessionView } from '../../shared/reducer'
import { createSnapshotter, type Snapshotter } from '../snapshot/snapshotter'
import { createGate } from '../containment/gate'
import type { Store } from '../store/types'
import { snapshotAtStep } from './restore-history'
import { snapshotTablesOf } from '../store/snapshot-tables'

/**
 * Replay (issue 4): a stored session, event by event, through the same reducer
 * the live UI uses, with the files of each moment from the snapshots.
 */

export interface ReplayFrame {
  event: StepwiseEvent
  /** Milliseconds since the session's first event. */
  atMs: number
  /** What the session looked like right after this event. */
  view: SessionView
  /** For a checkpoint: its unified diff against the files just before it. */
  diff?: string
}

/**
 * A snapshotter that only reads stored snapshots (it never lists the project), for previews,
 * `file-at`, replay and the diff export: what it shows passes the gate as a read would now, so
 * a snapshot stored before a file was known to be a secret (a project that was $HOME, a key by
 * content) never shows it.
 */
export function snapshotReader(
  store: Store,
  root: string,
): Snapshotter & { readKept(path: string, hash: string): Buffer | null } {
  const snapshots = createSnapshotter(snapshotTablesOf(store), { root, listFiles: async () => [] })
  const gate = createGate(realpathOr(root))
  const shown = (p: string) => gate.admitsName(p)
  const keep = (list: string[]) => list.filter(shown)
  return {
    ...snapshots,
    getManifest: (id) => snapshots.getManifest(id).filter((f) => shown(f.path)),
    readFileAt(id, p) {
      if (!shown(p)) return null
      const data = snapshots.readFileAt(id, p)
      return data && gate.checkContent(p, data) ? null : data
    },
    /** A file kept outside the snapshots (changed by a command under an ignored folder), by its hash. */
    readKept(p, hash) {
      if (!gate.admitsName(p, { inIgnoredFolder: true })) return null
      let data: Buffer
      try {
        data = snapshots.readBlob(hash)
      } catch {
        return null // not carried over (a session imported from a bundle keeps the record, not the bytes)
      }
      return gate.checkContent(p, data) ? null : data
    },
    diffSnapshots(fromId, toId) {
      const c = snapshots.diffSnapshots(fromId, toId)
      return { added: keep(c.added), modified: keep(c.modified), deleted: keep(c.deleted) }
    },
  }
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return path.resolve(p) // the project is gone: its stored snapshots are still judged by name
  }
}

/** The unified diff between two snapshots, file by file in path order; binary files in one line. */
export function snapshotDiff(snapshots: Snapshotter, fromId: number, toId: number): string {
  const changes = snapshots.diffSnapshots(fromId, toId)
  const paths = [...changes.added, ...changes.modified, ...changes.deleted].sort()
  return paths
    .map((p) => {
      const before = snapshots.readFileAt(fromId, p)
      const after = snapshots.readFileAt(toId, p)
      if (before?.includes(0) || after?.includes(0)) return `Binary file ${p} changed\n`
      return unifiedDiff(p, before?.toString('utf8') ?? null, after?.toString('utf8') ?? null)
    })
    .join('')
}

/** The session's frames in order, lazily (a view per event would not fit for long sessions). */
export function* replayFrames(
  events: readonly StepwiseEvent[],
  snapshots: Snapshotter,
): Generator<ReplayFrame> {
  const start = events[0]?.ts ?? 0
  let view = emptySessionView
  let head: number | undefined
  for (const event of events) {
    view = reduceEvent(view, event)
    let diff: string | undefined
    if (event.type === 'session.started') head = event.baselineSnapshotId
    else if (event.type === 'checkpoint.restored') head = event.snapshotId
    else if (event.type === 'checkpoint.created') {
      diff = head === undefined ? undefined : snapshotDiff(snapshots, head, event.snapshotId)
      head = event.snapshotId
    }
    yield { event, atMs: event.ts - start, view, ...(diff === undefined ? {} : { diff }) }
  }
}

export function replaySession(store: Store, sessionId: string): Generator<ReplayFrame> {
  const session = store.getSession(sessionId)
  if (!session) throw new Error(`replay: no session ${sessionId}`)
  return replayFrames(store.listEvents(sessionId), snapshotReader(store, session.repo))
}

/**
 * The session as it looked right after `seq` and the snapshot of its files then,
 * for the app's scrubber. Undefined when the session does not exist; a seq past the
 * end gives the last state.
 */
export function replayAt(
  store: Store,
  sessionId: string,
  seq: number,
): { view: SessionView; snapshotId: number | undefined } | undefined {
  if (!store.getSession(sessionId)) return undefined
  const events = store.listEvents(sessionId)
  let view = emptySessionView
  for (const e of events) {
    if (e.seq > seq) break
    view = reduceEvent(view, e)
  }
  return { view, snapshotId: snapshotAtStep(events, seq) }
}
