import path from 'node:path'
import { Option } from 'commander'
import { defaultDataDir } from '../../config/paths'
import { openDataFolder } from '../../open-data-folder'
import type { SessionRow, Store } from '../../store/types'
import { UsageError } from './exit-codes'

/** The session store as the CLI commands open it: `--data-dir`, else the default data folder. */

export interface StoreOptions {
  dataDir?: string
}

/**
 * Opens the data folder as every CLI command does (session/data-folder.ts): a restore a crash
 * cut short is finished first, and said on stderr.
 */
export function openCliStore(dataDir: string | undefined): Store {
  const { store, notices } = openDataFolder(path.resolve(dataDir ?? defaultDataDir()))
  for (const notice of notices) process.stderr.write(`stepwise: ${notice}\n`)
  return store
}

export function withStore<T>(opts: StoreOptions, fn: (store: Store) => T): T {
  const store = openCliStore(opts.dataDir)
  try {
    return fn(store)
  } finally {
    store.close()
  }
}

export function requireSession(store: Store, id: string): SessionRow {
  const session = store.findSession(id)
  if (!session) {
    throw new UsageError(
      `no session matches "${id}" in ${store.path}. List them with: stepwise sessions list`,
    )
  }
  return session
}

/** `--data-dir`, as every sessions command takes it. */
export const dataDirOption = (): Option =>
  new Option(
    '--data-dir <dir>',
    'where sessions are stored (default: $STEPWISE_HOME, else the OS app-data folder)',
  )
