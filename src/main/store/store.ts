import { createApprovalStore } from './approval-rules'
import { createBundleAccess } from './bundles'
import { createEventRepository } from './events'
import { bindDatabase } from './handle'
import { openStoreFile, type OpenStoreOptions } from './open'
import { createRestoreJournal } from './restore-journal'
import { createSessionRepository } from './sessions'
import { createSettingsRepository } from './settings'
import { createTrafficRepository } from './traffic'
import type { Store } from './types'

export { STORE_FILE_NAME, type OpenStoreOptions } from './open'
export { newSessionId } from './sessions'

/**
 * Opens the store in `dataDir` (store/open.ts: the file, its migrations and faults) and wires a
 * repository per table over the one connection. Nothing outside store/ writes SQL.
 */
export function openStore(dataDir: string, opts: OpenStoreOptions = {}): Store {
  const opened = openStoreFile(dataDir, opts)
  const { db, guard } = opened
  const sessions = createSessionRepository(db, guard)
  const events = createEventRepository(db, guard)
  const traffic = createTrafficRepository(db, guard)
  const bundles = createBundleAccess(db, { sessions, events, traffic })
  const { insertImported: _session, close: stopHeartbeat, ...sessionMethods } = sessions
  const store: Store = {
    path: opened.file,
    /** False when the store opened read-only (a folder this user cannot write): writes fail. */
    writable: !db.readonly,
    ...sessionMethods,
    appendEvent: events.appendEvent,
    listEvents: events.listEvents,
    appendTraffic: traffic.append,
    listTraffic: traffic.list,
    getSnapshot: bundles.snapshot,
    approvals: createApprovalStore(db),
    restoreJournal: createRestoreJournal(db),
    bundles,
    ...createSettingsRepository(db, guard),
    close() {
      stopHeartbeat()
      opened.close()
    },
  }
  bindDatabase(store, db)
  return store
}
