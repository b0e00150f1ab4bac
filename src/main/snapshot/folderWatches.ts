import fs from 'node:fs'
import path from 'node:path'

/*
 * One `fs.watch` per folder and process, shared by everyone who watches that folder. The code
 * index's watcher, the snapshot's change tracker and the secrets walk's tracker each watch most
 * of the project's folders; each watch of its own cost ~10–15 µs of the session's thread (a
 * handle, its start), paid inside the step of a session's first command for two of them. The
 * kernel already shares one inotify watch per directory; this shares the handle too.
 *
 * Each subscriber sees exactly the events it would have seen with a watch of its own made when
 * it subscribed: every event delivered after that, and its error. An event that carries the
 * folder's own name means the folder itself was deleted or moved (or, rarely, an entry named like
 * its folder changed): the watch is gone or follows the folder elsewhere. This module owns that
 * reading; it tells subscribers that care through `onGone`, after the event itself.
 *
 * Joining a watch made earlier must not leave a subscriber deaf to a folder deleted and made
 * again under the same name. A shared watch that reports its folder's own name (deleted or moved)
 * or an error takes no new subscribers: the next one makes a new watch. One that joins before the
 * kernel's news of the deletion is delivered hears that news too, as every subscriber of the watch
 * does, and takes it as its own ("watch afresh", changeTracker.ts). Comparing the folder's inode
 * at each join would not tell more: the new folder often gets the old one's inode number (tmpfs
 * and ext4 reuse them at once), and the stat cost as much as the watch it would spare.
 */

export interface FolderListener {
  /** An entry of the folder changed; `name` undefined when the system could not say which. */
  onEvent(name: string | undefined): void
  /** The watch failed (its folder went away, mostly): no more events come from it. */
  onError(error: Error): void
  /**
   * The folder itself was deleted or moved (an event carried its own name): a folder made again
   * under that name goes unwatched by this subscription. Told after `onEvent` of that event.
   */
  onGone?(): void
}

interface Shared {
  watcher: fs.FSWatcher
  listeners: Set<FolderListener>
}

const shared = new Map<string, Shared>()

/**
 * Watches the folder at `abs` for `listener` until the returned function is called. Throws as
 * `fs.watch` does (ENOENT, ENOSPC, EMFILE) when a new watch must be made and cannot be.
 */
export function watchFolder(abs: string, listener: FolderListener): () => void {
  const joined = shared.get(abs) ?? open(abs)
  joined.listeners.add(listener)
  return () => {
    if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return
    joined.watcher.close()
    if (shared.get(abs) === joined) shared.delete(abs)
  }
}

/** Folders with a shared watch open now (tests). */
export function sharedWatchCount(): number {
  return shared.size
}

function open(abs: string): Shared {
  const listeners = new Set<FolderListener>()
  const self = path.basename(abs)
  const watcher = fs.watch(abs, { persistent: false }, (_type, name) => {
    const entry = name === null || name === undefined ? undefined : String(name)
    const gone = entry === self
    // The folder itself deleted or moved: whoever comes next watches afresh.
    if (gone) leave(abs, s)
    for (const l of [...listeners]) {
      l.onEvent(entry)
      if (gone) l.onGone?.()
    }
  })
  const s: Shared = { watcher, listeners }
  watcher.on('error', (err) => {
    leave(abs, s)
    for (const l of [...listeners]) l.onError(err)
  })
  watcher.unref()
  shared.set(abs, s)
  return s
}

/** No new subscriber joins `s`; those it has keep it until they stop. */
function leave(abs: string, s: Shared): void {
  if (shared.get(abs) === s) shared.delete(abs)
}
