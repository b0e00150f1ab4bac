import { recoverInterruptedRestores } from './timetravel/restore'
import { backupStore } from './store/doctor'
import { openStore, type OpenStoreOptions } from './store/store'
import type { Store } from './store/types'
import { sweepTempWrites } from './containment/temp-files'
import { bindDataFolder } from './session/data-folder'
import { errorMessage } from '../shared/errors'

export interface OpenedDataFolder {
  store: Store
  /** What the opening did that the user must hear of (a restore finished or left undone), in their words. */
  notices: string[]
}

/**
 * Opens a data folder the one way every host and command does (the app, `serve`, each CLI
 * command): the store — checked after an unclean end, refused when damaged (store/health.ts) —
 * and then, before anything else touches a project, every restore a crash cut short is finished
 * (timetravel/restore-apply.ts), leaving alone files changed by hand since, and the temp files
 * of writes a killed process left in projects are removed (containment/temp-files.ts). The notices
 * say so.
 */
export function openDataFolder(
  dataDir: string,
  opts: OpenStoreOptions & {
    /**
     * Hosts that run for a while (the app, `serve`) start the daily backup of the store
     * (store/doctor.ts#backupStore) in the background; a process that ends first leaves it for the next.
     */
    backup?: boolean
  } = {},
): OpenedDataFolder {
  const store = openStore(dataDir, opts)
  const notices: string[] = []
  if (!store.writable) return { store, notices }
  bindDataFolder(store)
  // Before the restores, which write through temp files of their own.
  const swept = sweepTempWrites(dataDir)
  if (swept.length > 0)
    notices.push(
      `Removed ${swept.length} temporary file${swept.length === 1 ? '' : 's'} an interrupted write left behind: ${swept.join(', ')}.`,
    )
  for (const r of recoverInterruptedRestores(store))
    notices.push(r.error ? `${r.message} ${r.error}` : r.message)
  if (opts.backup) void dailyBackup(store, dataDir)
  return { store, notices }
}

/**
 * The daily backup of the store (store/doctor.ts#backupStore), when one is due: the app and `serve`
 * start it in the background when they open the data folder; the CLI's session commands run it
 * after the session, before the store closes, so a user of the CLI alone gets it too without it
 * delaying a session's start. Not due, it costs a readdir and a stat. Never throws: a failed
 * backup is said on stderr.
 */
export async function dailyBackup(store: Store, dataDir: string): Promise<void> {
  if (!store.writable) return
  try {
    await backupStore(store, dataDir)
  } catch (err) {
    console.error(`[stepwise] the daily backup of ${store.path} failed: ${errorMessage(err)}`)
  }
}
