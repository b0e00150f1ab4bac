import path from 'node:path'
import { bindDataFolder } from './data-folder'
import { createSandbox } from '../containment/sandbox'
import type { UnreadablePath } from '../containment/ripgrep'
import type { Sandbox } from '../containment/types'
import { listUnignoredDirectories } from '../snapshot/directories'
import { ignoredStateFileIn } from '../snapshot/ignoredState'
import { stateFileIn } from '../snapshot/savedState'
import { createSnapshotter, type Snapshotter } from '../snapshot/snapshotter'
import type { Store } from '../store/types'
import { snapshotTablesOf } from '../store/snapshot-tables'

/**
 * One snapshotter per store and project root, kept across sessions: its in-memory
 * stat and listing caches and its file watches are what make a checkpoint of a
 * big tree cost what changed. Keyed by the sandbox's rules too, since they decide
 * what is listed. `oneShot`: the process takes this one snapshot and ends (a CLI
 * undo), so the directory walk and the watches, which only pay off in later
 * snapshots, are left out.
 */
const snapshotters = new WeakMap<Store, Map<string, Snapshotter>>()

/** What the last snapshot listing of each project could not reach (Sandbox.listFiles#skipped). */
const skippedByRoot = new Map<string, UnreadablePath[]>()

/** Said once, at a session's start: the paths its snapshots and listings leave out, and why. */
export function skippedNotice(root: string): string[] {
  const skipped = skippedByRoot.get(root) ?? []
  if (skipped.length === 0) return []
  const first = skipped[0]
  const more = skipped.length > 1 ? ` and ${skipped.length - 1} more` : ''
  return [
    `${skipped.length} path(s) skipped: listings, snapshots and checkpoints leave out "${first.path}"${more}: ${first.reason}.`,
  ]
}

export function snapshotterFor(
  store: Store,
  sandbox: Sandbox,
  opts: { oneShot?: boolean } = {},
): Snapshotter {
  let byRoot = snapshotters.get(store)
  if (!byRoot) snapshotters.set(store, (byRoot = new Map()))
  const key = `${sandbox.root}\0${sandbox.denyPatterns.join('\0')}\0${opts.oneShot ? 'once' : 'kept'}`
  let snapshotter = byRoot.get(key)
  if (!snapshotter) {
    const listFiles = async () => {
      const listed = await sandbox.listFiles()
      skippedByRoot.set(sandbox.root, listed.skipped ?? [])
      return listed.files
    }
    snapshotter = opts.oneShot
      ? createSnapshotter(snapshotTablesOf(store), { root: sandbox.root, listFiles })
      : createSnapshotter(snapshotTablesOf(store), {
          root: sandbox.root,
          listFiles,
          listDirectories: () =>
            listUnignoredDirectories(sandbox.root, (rel) => sandbox.isIgnored(rel, true)),
          isIgnored: (rel) => sandbox.isIgnored(rel),
          watch: true,
          stateFile: snapshotStateFile(store, sandbox),
        })
    byRoot.set(key, snapshotter)
  }
  return snapshotter
}

/**
 * Stops the file watches of every snapshotter kept for `store`, before the store
 * closes (a CLI run ending). A later session on the store builds them afresh.
 */
export function closeSnapshotters(store: Store): void {
  for (const snapshotter of snapshotters.get(store)?.values() ?? []) snapshotter.close()
  snapshotters.delete(store)
}

/**
 * Where the snapshotter leaves its listing and stats for the next process
 * (snapshot/savedState.ts): beside the store's database, per root and deny list.
 * None for a database in memory.
 */
function snapshotStateFile(store: Store, sandbox: Sandbox): string | undefined {
  const dataDir = dataFolderOf(store)
  return dataDir && stateFileIn(dataDir, sandbox.root, sandbox.denyPatterns)
}

/** Where a session's ignored-folder record is kept for the next process (snapshot/ignoredState.ts), as above. */
export function ignoredStateFile(store: Store, sandbox: Sandbox): string | undefined {
  const dataDir = dataFolderOf(store)
  return dataDir && ignoredStateFileIn(dataDir, sandbox.root, sandbox.denyPatterns)
}

/** The folder of the store's database file; undefined for a database in memory. */
function dataFolderOf(store: Store): string | undefined {
  const file = store.path
  if (!file || file === ':memory:' || !path.isAbsolute(file)) return undefined
  return path.dirname(file)
}

/**
 * Starts a new session's baseline ahead of opening it, for a host with setup of
 * its own to do first (probing the command sandbox, starting MCP servers): the saved
 * listing loads and a big tree's stats (~0.2 s for 70,000 files) run on helper
 * threads meanwhile. The baseline shows the tree as of this call.
 */
export async function prepareBaseline(store: Store, repo: string): Promise<void> {
  bindDataFolder(store)
  snapshotterFor(store, await createSandbox(repo)).prepare()
}
