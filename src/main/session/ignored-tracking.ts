import type { StepwiseEvent } from '../../shared/protocol'
import type { Sandbox } from '../containment/types'
import { createIgnoredFolders, type IgnoredChange } from '../snapshot/ignoredFolders'
import type { Snapshotter } from '../snapshot/snapshotter'
import { byPath } from '../snapshot/sortedPaths'
import { ignoredRecordAt } from './ignored-at'
import type { ToolContext } from '../tools/types'

/**
 * What a session's commands change under ignored folders (snapshot/ignoredFolders.ts), for review,
 * checkpoints and the diff export. Nothing is walked until the session's first command (file tools
 * cannot write there): a chat that runs none never pays for a big node_modules. A loaded session
 * (a chat after a restart) starts a new record at its first command and folds it into what its
 * events already say changed since the session started.
 */
export interface IgnoredTracking {
  ignoredChanges: NonNullable<ToolContext['ignoredChanges']>
  beforeCommand: NonNullable<ToolContext['beforeCommand']>
  /** Stops the watches (a session dropped from memory). */
  close(): void
}

export function trackIgnored(
  sandbox: Sandbox,
  snapshotter: Snapshotter,
  events: readonly StepwiseEvent[] = [],
  /** Where the record's folders are kept for the next process (snapshot/ignoredState.ts). */
  stateFile?: string,
): IgnoredTracking {
  const prior = ignoredRecordAt(events)
  const folders = createIgnoredFolders(sandbox, {
    listed: () => snapshotter.lastListing()?.paths,
    listedFolders: () => snapshotter.lastListing()?.directories,
    keep: (hash, raw) => snapshotter.keepBlob(hash, raw),
    stateFile,
  })
  let recorded: Promise<unknown> | undefined
  return {
    async ignoredChanges() {
      if (!recorded) return prior.map((c) => ({ ...c }))
      await recorded
      return foldChanges(prior, await folders.changes())
    },
    async beforeCommand() {
      await (recorded ??= folders.record().catch(() => undefined))
    },
    close: () => folders.close(),
  }
}

/**
 * `now` (since a later record) folded onto `before` (since the session started): a file added
 * before and changed since is still added; added before and deleted since is no change at all;
 * deleted before and there again is modified.
 */
export function foldChanges(
  before: readonly IgnoredChange[],
  now: readonly IgnoredChange[],
): IgnoredChange[] {
  const out = new Map(before.map((c) => [c.path, { ...c }]))
  for (const c of now) {
    const was = out.get(c.path)?.status
    if (was === 'added' && c.status === 'deleted') out.delete(c.path)
    else if (was === 'added') out.set(c.path, { ...c, status: 'added' })
    else if (was === 'deleted' && c.status === 'added') out.set(c.path, { ...c, status: 'modified' })
    else out.set(c.path, { ...c })
  }
  return [...out.values()].sort(byPath)
}
