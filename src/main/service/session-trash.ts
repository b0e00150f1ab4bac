import { storedManifestReader } from '../snapshot/manifest-links'
import { purgeSessions } from '../store/purge'
import type { ServiceContext } from './context'

/** How long a deleted session can be restored (the app's Undo) before it is purged. */
export const DELETE_GRACE_MS = 30_000

/**
 * Deleted sessions wait here for their Undo window to pass (`session/delete` marks them,
 * `session/restore` takes them back), then are purged: at start, and after each delete.
 */
export class SessionTrash {
  private purgeTimer: NodeJS.Timeout | undefined

  constructor(private readonly ctx: ServiceContext) {}

  /** Marks the sessions deleted; returns those marked and until when they can be restored. */
  delete(ids: readonly string[]): { deleted: string[]; restorableUntil: number } {
    const now = Date.now()
    const deleted = this.ctx.store.markSessionsDeleted([...ids], now)
    this.schedulePurge(DELETE_GRACE_MS)
    return { deleted, restorableUntil: now + DELETE_GRACE_MS }
  }

  /** Purges the sessions whose grace period is over. */
  purgeExpired(now = Date.now()): void {
    const due = this.ctx.store
      .listDeletedSessions()
      .filter((d) => d.deletedAt + DELETE_GRACE_MS <= now)
      .map((d) => d.id)
    if (due.length === 0) return
    try {
      purgeSessions(this.ctx.store, due, storedManifestReader(this.ctx.store))
    } catch (err) {
      console.error('[stepwise] purging deleted sessions failed; retried on the next start', err)
    }
  }

  close(): void {
    if (this.purgeTimer) clearTimeout(this.purgeTimer)
    this.purgeTimer = undefined
  }

  private schedulePurge(delayMs: number): void {
    if (this.purgeTimer) return
    this.purgeTimer = setTimeout(() => {
      this.purgeTimer = undefined
      this.purgeExpired()
      if (this.ctx.store.listDeletedSessions().length > 0) this.schedulePurge(DELETE_GRACE_MS)
    }, delayMs + 100)
    this.purgeTimer.unref()
  }
}
