import type { StepwiseEvent } from '../../shared/protocol'
import type { FileFingerprint } from '../containment/fingerprint'
import type { ReadTracker } from './types'

/** What the model has read in this session, by root-relative path. */
export function createReadTracker(): ReadTracker {
  const reads = new Map<string, FileFingerprint>()
  return {
    recordRead: (path, fingerprint) => void reads.set(path, fingerprint),
    lastRead: (path) => reads.get(path),
    forget: (path) => void reads.delete(path),
  }
}

/** One change to the read record: a read (or write) with its fingerprint, or a forget (null). */
export interface ReadChange {
  path: string
  fingerprint: FileFingerprint | null
}

export interface JournaledReadTracker extends ReadTracker {
  /** The changes since the last call, oldest first (stored with the call's `tool.finished`). */
  take(): ReadChange[]
}

/**
 * A read record that belongs to the session, not to one run: every change is journaled so the
 * loop stores it with the call that made it, and a later turn — in this process or after a
 * restart — starts from the stored journal (`replayReads`). A read stays valid until the file
 * changes on disk: the edit tools compare its fingerprint with the file's.
 */
export function journaledReadTracker(inner: ReadTracker): JournaledReadTracker {
  let pending: ReadChange[] = []
  return {
    recordRead(path, fingerprint) {
      inner.recordRead(path, fingerprint)
      pending.push({ path, fingerprint })
    },
    lastRead: (path) => inner.lastRead(path),
    forget(path) {
      inner.forget(path)
      pending.push({ path, fingerprint: null })
    },
    take() {
      const taken = pending
      pending = []
      return taken
    },
  }
}

/** Applies the read journal stored in a session's events (its `tool.finished` records). */
export function replayReads(tracker: ReadTracker, events: readonly StepwiseEvent[]): void {
  for (const event of events) {
    if (event.type !== 'tool.finished' || !event.reads) continue
    for (const change of event.reads) {
      if (change.fingerprint) tracker.recordRead(change.path, change.fingerprint)
      else tracker.forget(change.path)
    }
  }
}
