import os from 'node:os'
import { errnoCode } from '../../shared/errors'

/**
 * Whether a session marked `running` still has a process running it (docs/architecture.md#data).
 * The process that runs a turn writes itself into the row (owner host and pid) and refreshes a
 * heartbeat while the turn runs; a row whose owner is gone reads as `interrupted` everywhere
 * (lists, `show`, the app, undo/rewind/delete/compact), without anyone having to write it: a
 * process killed with SIGKILL, or one that can no longer write (a full disk), leaves its row as
 * it was, and the next reader sees through it.
 *
 * - Same host: the owner's pid is checked at once (signal 0), so `sessions list` after a
 *   `kill -9` already says interrupted; a heartbeat older than REUSED_PID_MS also counts as gone,
 *   for a pid reused by another program (long, so a process whose thread is busy for a while —
 *   a huge first snapshot on a loaded machine — is not taken for dead).
 * - This very process: only the sessions it is running a turn for right now (a turn that
 *   ended without managing to record it, on a full disk, is gone).
 * - Another host (a data folder on a network share): the heartbeat alone, older than STALE_MS.
 */

export const HEARTBEAT_MS = 10_000
export const STALE_MS = 60_000
export const REUSED_PID_MS = 10 * 60_000

export const HOST = os.hostname()

export interface Ownership {
  owner_pid: number | null
  owner_host: string | null
  heartbeat_at: number | null
}

export function ownerGone(
  id: string,
  row: Ownership,
  runningHere: ReadonlySet<string>,
  now = Date.now(),
): boolean {
  if (row.owner_pid === null || row.owner_host === null) return true
  if (row.owner_host === HOST && row.owner_pid === process.pid) return !runningHere.has(id)
  const age = row.heartbeat_at === null ? Infinity : now - row.heartbeat_at
  if (row.owner_host !== HOST) return age > STALE_MS
  return age > REUSED_PID_MS || !pidAlive(row.owner_pid)
}

/** Whether a process of this machine is running (EPERM: it is, under another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists, under another user.
    return errnoCode(err) === 'EPERM'
  }
}
