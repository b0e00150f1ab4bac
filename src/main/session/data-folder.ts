import path from 'node:path'
import { hideFromCommands } from '../containment/project-secrets'
import { keepSecretsScansIn } from '../containment/secrets-scan-state'
import { keepTempJournalIn } from '../containment/temp-files'
import type { Store } from '../store/types'

/**
 * The per-data-folder setup every session needs before it runs anything: the folder that holds
 * the store (the database, API keys, the secrets walk's state) hidden from every sandboxed
 * command, the walk's state kept there, and the journal of temp files (containment/temp-files.ts). Derived from the store the session writes to and
 * applied by the session's own start (start.ts), so no host — app, `serve`, `edit`, review,
 * fork, `sessions continue`, replay — has a call to remember: a host only opens its store.
 */
export function bindDataFolder(store: Pick<Store, 'path'>): void {
  const dataDir = path.dirname(store.path)
  hideFromCommands(dataDir)
  keepSecretsScansIn(dataDir)
  keepTempJournalIn(dataDir)
}
