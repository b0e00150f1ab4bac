import type { EventDraft, StepwiseEvent } from '../../shared/protocol'
import type { TrafficEntry } from '../providers/types'
import type { ApprovalStore } from './approval-rules'
import type { SqliteDatabase } from './sqlite'

/**
 * `idle`: opened, no turn run yet (a new chat, a new fork). `running`: a live process runs a turn
 * (a row whose process is gone reads as `interrupted`: store/liveness.ts). The rest: how the last
 * turn ended.
 */
import type { SessionStatus } from '../../shared/protocol'
export type { SessionStatus }

export interface SessionRow {
  id: string
  repo: string
  title: string
  provider: string
  model: string
  status: SessionStatus
  createdAt: number
  updatedAt: number
  parentId: string | null
  forkSeq: number | null
  /** When it was (softly) deleted; null for a live session. */
  deletedAt: number | null
}

export interface SnapshotFile {
  path: string
  hash: string
  size: number
  mode: number
  mtimeMs: number
}

export interface SnapshotInfo {
  id: number
  sessionId: string | null
  /** The project root the snapshot was taken of (realpath'd by the caller). */
  root: string
  label: string | null
  createdAt: number
  fileCount: number
  totalBytes: number
  /** sha256 of the manifest; equal hashes mean identical trees (paths, contents, modes, mtimes). */
  manifestHash: string
}

/**
 * The session store (docs/architecture.md#data). One SQLite file in WAL mode; every write that a
 * caller has seen return is durable.
 */
export interface Store {
  readonly path: string
  /** False when the data folder could only be opened read-only: listing works, writes fail. */
  readonly writable: boolean
  /** The open connection, shared with the snapshotter (one connection per process). */
  readonly db: SqliteDatabase
  createSession(input: {
    id?: string
    repo: string
    title: string
    provider: string
    model: string
    /** For a fork: the session it came from and the step (event seq) it forked at. */
    parentId?: string
    forkSeq?: number
  }): SessionRow
  getSession(id: string): SessionRow | undefined
  /** Resolves a full id or a unique prefix of one. */
  findSession(idOrPrefix: string): SessionRow | undefined
  listSessions(opts?: { repo?: string; limit?: number }): SessionRow[]
  /**
   * `running` makes this process the session's owner (it heartbeats until another status is set
   * or the store closes); any other status lets go of it.
   */
  setSessionStatus(id: string, status: SessionStatus): void
  setSessionTitle(id: string, title: string): void
  /** Marks live sessions deleted (they leave the lists and prefixes); returns those it marked. */
  markSessionsDeleted(ids: readonly string[], at?: number): string[]
  /** Brings softly deleted sessions back; returns those it restored. */
  restoreSessions(ids: readonly string[]): string[]
  /** Softly deleted sessions, with when they were deleted. */
  listDeletedSessions(): Array<{ id: string; deletedAt: number }>

  /**
   * Validates the event, appends it with the next `seq` (1, 2, 3, … per session)
   * and `ts` (ms since the epoch), durably, and returns it complete. Throws on an
   * invalid event or an unknown session (bugs in the core, not user errors).
   */
  /**
   * Appends an event stamped now, or at `opts.ts` when a copy keeps the time it first happened
   * (a fork's copied history: its overview shows the real timings).
   */
  appendEvent(sessionId: string, draft: EventDraft, opts?: { ts?: number }): StepwiseEvent
  /** Events in seq order; `afterSeq` returns only those with a greater seq. */
  listEvents(sessionId: string, opts?: { afterSeq?: number }): StepwiseEvent[]

  appendTraffic(sessionId: string, entry: TrafficEntry): void
  listTraffic(sessionId: string): Array<TrafficEntry & { id: number; ts: number }>

  /** "Always allow" rules and rule-file hashes (./approval-rules.ts). */
  readonly approvals: ApprovalStore

  getSetting(key: string): string | undefined
  setSetting(key: string, value: string): void

  close(): void
}
