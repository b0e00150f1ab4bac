import fs from 'node:fs'
import { errnoCode } from '../../shared/errors'
import { watchFolder } from './folderWatches'
import { childOf, onDisk } from '../containment/paths'

/**
 * Which files changed since the last look, from the kernel's file events, so a
 * checkpoint of a big tree after a command that touched ten files stats ten
 * files rather than fifty thousand (in the spirit of git's fsmonitor).
 *
 * One non-recursive `fs.watch` (inotify on Linux) per listed directory: an event
 * names the entry that changed in it. The tracker only ever says "these paths
 * may have changed"; the snapshotter re-captures them. It vouches for the rest
 * (`trusted`) only when it cannot have missed an event:
 *
 * - every directory it was given is watched, and no watch failed since;
 * - no event came without a name;
 * - fewer events arrived than the kernel's queue holds (an overflow drops events
 *   silently, but only after a full queue of them was delivered: fewer than that
 *   means none was dropped).
 *
 * Names coming and going are not its job: the listing cache sees those from the
 * directories' own timestamps. A watched directory deleted or moved stops the
 * watching (`watching` turns false) until the snapshotter calls `watch` again.
 *
 * Not seen by file events, so not covered: writes through a hard link that lies
 * outside the project, and changes on network file systems. The snapshotter
 * offers the tracker only where the caller asks for it (the app's hosts).
 *
 * Linux only: the rules above are inotify's (its queue, its event for a watched
 * directory's own deletion), and macOS would spend a descriptor per directory.
 * Elsewhere the tracker never watches, so every snapshot stats every file.
 */

export interface ChangeReport {
  /** True when `paths` holds every path that changed since the previous collect. */
  trusted: boolean
  /** Root-relative paths named by events: files, and directories whose entries changed. */
  paths: Set<string>
}

export interface ChangeTracker {
  /**
   * Watches exactly `dirs` (root-relative, '' for the root) from now on, each
   * afresh: a directory replaced under the same name gets a new watch. Changes
   * made before this call are not reported; the caller stats everything after it.
   */
  watch(dirs: readonly string[]): void
  /** Every directory given to the last `watch` is watched and none failed since. */
  readonly watching: boolean
  /** Stops for good: `watch` does nothing afterwards. */
  close(): void
  /** Lets events already queued by the kernel arrive, then returns and forgets them. */
  collect(): Promise<ChangeReport>
}

/** The kernel's queue length where it can be read; 16384 is Linux's default. */
function queueLimit(): number {
  try {
    const n = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'))
    return Number.isInteger(n) && n > 0 ? n : 16384
  } catch {
    return 16384
  }
}

/**
 * Most folders one watcher may watch: an eighth of the user's inotify watches (a budget
 * every program of the user shares; 8,192 on older kernels), and 10,000 at most. A tree
 * with more folders is not watched; it is checked by a walk instead (docs/index.md).
 */
export function watchBudget(): number {
  try {
    const n = Number(fs.readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8'))
    if (Number.isInteger(n) && n > 0) return Math.min(10_000, Math.floor(n / 8))
  } catch {
    // not Linux, or /proc hidden: the cap alone
  }
  return 10_000
}

/** Two turns of the event loop: the second waits behind a poll phase that reads the events. */
const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)))

export function createChangeTracker(
  root: string,
  opts: { maxEvents?: number; platform?: NodeJS.Platform; watchBudget?: number } = {},
): ChangeTracker {
  const maxEvents = Math.min(opts.maxEvents ?? Infinity, queueLimit() - 1)
  const budget = opts.watchBudget ?? watchBudget()
  /** Stops each folder's watch (folderWatches.ts: shared with other watchers of the folder). */
  let watchers: Array<() => void> = []
  let paths = new Set<string>()
  let events = 0
  // Set when something since the last collect (or for good: no watches) leaves a gap.
  let gap = true
  let watching = false
  let closed = (opts.platform ?? process.platform) !== 'linux'

  const closeAll = () => {
    for (const stop of watchers) stop()
    watchers = []
    watching = false
  }

  const add = (dir: string) => {
    const stop = watchFolder(onDisk(root, dir), {
      onEvent(name) {
        events++
        if (name === undefined) return void (gap = true)
        paths.add(childOf(dir, name))
      },
      // The directory itself was deleted or moved: a new directory of that name (the same
      // inode number, even) would go unwatched. Watch afresh. (A file named like its folder
      // lands here too, which costs one full check.)
      onGone() {
        gap = true
        watching = false
      },
      // A watch that fails later (its directory went away) can no longer vouch for it.
      onError() {
        gap = true
        watching = false
      },
    })
    watchers.push(stop)
  }

  return {
    watch(dirs) {
      closeAll()
      gap = true
      // Over the budget: not watched, so every check walks the tree (`watching` stays false).
      if (closed || dirs.length > budget) return
      paths = new Set()
      events = 0
      try {
        for (const dir of dirs) add(dir)
        watching = true
      } catch (err) {
        closeAll()
        // Out of watches or descriptors: asking again on every snapshot would only cost time.
        const code = errnoCode(err)
        if (code === 'ENOSPC' || code === 'EMFILE') closed = true
        // Else a directory went away since it was listed: the next listing watches afresh.
      }
      gap = !watching
    },

    get watching() {
      return watching
    },

    async collect() {
      // Events only come from watches: without one there is nothing to wait two turns for
      // (a session's baseline would start its stats behind whatever else was queued).
      if (watching) await settle()
      const report = { trusted: watching && !gap && events < maxEvents, paths }
      paths = new Set()
      events = 0
      gap = !watching
      return report
    },

    close() {
      closeAll()
      closed = true
      gap = true
    },
  }
}
