import path from 'node:path'
import { Option } from 'commander'
import { defaultDataDir } from '../../config/paths'
import { openStore } from '../../store/store'
import type { SessionRow, Store } from '../../store/types'
import { UsageError } from './exit-codes'

/** The session store as the CLI commands open it: `--data-dir`, else the default data folder. */

export interface StoreOptions {
  dataDir?: string
}

export function withStore<T>(opts: StoreOptions, fn: (store: Store) => T): T {
  const store = openStore(path.resolve(opts.dataDir ?? defaultDataDir()))
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
