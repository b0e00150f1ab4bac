/**
 * The store's row types, as its readers see them: a leaf module, so the repositories and the
 * Store type (./types.ts) share them without importing each other.
 */

/**
 * `idle`: opened, no turn run yet (a new chat, a new fork). `running`: a live process runs a turn
 * (a row whose process is gone reads as `interrupted`: store/liveness.ts). The rest: how the last
 * turn ended.
 */
export type { SessionStatus } from '../../shared/protocol'
import type { SessionStatus } from '../../shared/protocol'

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

/** A row of `snapshots`, with the table's column names. */
export type SnapshotRow = {
  id: number
  session_id: string | null
  root: string
  label: string | null
  created_at: number
  manifest_hash: string
  file_count: number
  total_bytes: number
}

/** A `snapshots` row as its readers see it. */
export function toSnapshotInfo(r: SnapshotRow): SnapshotInfo {
  return {
    id: r.id,
    sessionId: r.session_id,
    root: r.root,
    label: r.label,
    createdAt: r.created_at,
    fileCount: r.file_count,
    totalBytes: r.total_bytes,
    manifestHash: r.manifest_hash,
  }
}

/** A session row from elsewhere (a bundle): its status as that store had it. */
export type ImportedSession = Omit<SessionRow, 'deletedAt' | 'status'> & { status: string }

/** An event as stored: its fields other than the envelope are one JSON payload. */
export interface StoredEvent {
  seq: number
  ts: number
  type: string
  /** JSON of the event's own fields. */
  payload: string
}
