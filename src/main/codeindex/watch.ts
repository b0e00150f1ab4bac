import fs from 'node:fs'
import { errnoCode } from '../../shared/errors'
import { childOf, onDisk } from '../containment/paths'
import type { Sandbox } from '../containment/types'
import { foreground } from '../foreground'
import { watchBudget } from '../snapshot/changeTracker'
import { watchFolder } from '../snapshot/folderWatches'
import type { CodeIndex, UpdateReport } from './code-index'

/*
 * Keeps the index fresh while the app or a CLI run is open: one fs.watch per
 * directory reports saves, deletes and renames of its entries; they are gathered
 * for 500 ms of quiet (an editor's save, a formatter and a git checkout each touch
 * many files at once) and then re-indexed in one update. Ignored and denied
 * directories are never watched.
 *
 * Directories, not files: a 70,000-file tree has ~3,000 directories. Watching
 * each file (chokidar's way) lstat'ed and watched every file on the main thread
 * for tens of seconds, starving the agent's steps, and closing those watches
 * held up the end of a CLI run by a second. The watches never keep the process
 * alive: the host decides when it ends.
 *
 * Watches are a budget shared with every program of the user (inotify's
 * max_user_watches), so a tree with more folders than watchBudget() is not
 * watched at all: its watches are closed and the index checks the tree again
 * every RESCAN_MS instead (a build: one listing, a stat per file, only changed
 * files read). 60,000 folders once took 60,006 watches.
 */

export const DEFAULT_DEBOUNCE_MS = 500
/** How often a tree over the watch budget is checked again. */
export const RESCAN_MS = 30_000
/** Directory reads in flight during the initial walk (libuv has 4 I/O threads for everyone). */
const WALK_READS = 2

/** What the watcher reports: a caught value as an Error (a thrown non-Error becomes its text). */
function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err))
}

export interface IndexWatcher {
  /** Resolves once every directory is watched and events are being reported (or rescans began). */
  readonly ready: Promise<void>
  /** How the tree is followed: the folders watched now, or rescans (past the watch budget). */
  state(): { watches: number; rescanning: boolean }
  /** Runs the pending update now (tests, shutdown) and waits for it. */
  flush(): Promise<void>
  close(): Promise<void>
}

export interface WatchOptions {
  sandbox: Sandbox
  debounceMs?: number
  onUpdate?: (report: UpdateReport) => void
  onError?: (error: Error) => void
  /** Most folders to watch (default watchBudget()); past it the tree is rescanned every `rescanMs`. */
  watchBudget?: number
  rescanMs?: number
  /** Told once when the tree has more folders than the budget and rescans begin. */
  onOverBudget?: (budget: number) => void
}

/** The unignored files directly in `dir` (at `absDir`), as project paths; none when it cannot be read. */
function unignoredFiles(absDir: string, dir: string, sandbox: Pick<Sandbox, 'isIgnored'>): string[] {
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(absDir, { withFileTypes: true })
  } catch {
    return []
  }
  const files: string[] = []
  for (const entry of entries) {
    const rel = childOf(dir, entry.name)
    if (entry.isFile() && !sandbox.isIgnored(rel, false)) files.push(rel)
  }
  return files
}

/**
 * Walks `top` and every unignored directory under it, calling `enter` for each directory as the
 * walk reaches it and `file`, when given, for each unignored file. A gentle walk: a few directory
 * reads at a time, so the shared I/O threads stay free for the agent's own reads and a step never
 * queues behind thousands of them; none at all while a step runs (foreground.ts). It ends at its
 * next directory once `stopped()`.
 */
async function gentleWalk(
  top: string,
  o: {
    abs: (rel: string) => string
    sandbox: Pick<Sandbox, 'isIgnored'>
    stopped: () => boolean
    enter: (dir: string) => void
    file?: (rel: string) => void
  },
): Promise<void> {
  const queue = [top]
  const worker = async () => {
    for (let dir = queue.pop(); dir !== undefined && !o.stopped(); dir = queue.pop()) {
      await foreground.wait() // an agent's step comes first: the walk goes on between steps
      if (o.stopped()) break
      o.enter(dir)
      let entries: fs.Dirent[]
      try {
        entries = await fs.promises.readdir(o.abs(dir), { withFileTypes: true })
      } catch {
        continue // vanished or unreadable: nothing to index there either
      }
      // A step may have begun while the read was out: judging the entries stats the folders for
      // their ignore files, on this thread (~10 ms of a big tree's first step when it did not wait).
      await foreground.wait()
      if (o.stopped()) break
      for (const entry of entries) {
        const rel = childOf(dir, entry.name)
        if (entry.isDirectory()) {
          if (!o.sandbox.isIgnored(rel, true)) queue.push(rel)
        } else if (o.file && entry.isFile() && !o.sandbox.isIgnored(rel, false)) o.file(rel)
      }
    }
  }
  // The queue only grows while a read is out: keep starting workers until it is empty.
  while (queue.length > 0 && !o.stopped()) await Promise.all(Array.from({ length: WALK_READS }, worker))
}

export function watchIndex(index: CodeIndex, opts: WatchOptions): IndexWatcher {
  const root = index.root
  const updates = createUpdateFeed(index, opts)
  let closed = false
  const budget = opts.watchBudget ?? watchBudget()
  let rescans: NodeJS.Timeout | undefined

  // Spelled as the change tracker spells its folders, so the two share each folder's watch.
  const abs = (rel: string) => onDisk(root, rel)
  const changed = (rel: string) => {
    if (!rescans) updates.add(abs(rel)) // else the next rescan finds it
  }
  const folders = createFolderWatches(abs, budget, opts.onError, (dir, name) => {
    if (closed) return
    if (name === undefined) return rescan(dir)
    const rel = childOf(dir, name)
    if (!opts.sandbox.isIgnored(rel)) entryChanged(rel)
  })

  /** Past the budget: every watch closed, and a check of the whole tree every rescanMs instead. */
  const overBudget = () => {
    if (rescans) return
    for (const stop of folders.closeAll()) stop()
    updates.clear()
    opts.onOverBudget?.(budget)
    rescans = setInterval(updates.rebuild, opts.rescanMs ?? RESCAN_MS)
    rescans.unref()
  }
  const watchDir = (dir: string) => {
    if (!closed && !rescans && !folders.watch(dir)) overBudget()
  }

  /** An entry of a watched directory changed: a file to re-index, or a directory to (re)watch. */
  const entryChanged = (rel: string) => {
    changed(rel)
    let isDir: boolean
    try {
      isDir = fs.lstatSync(abs(rel)).isDirectory()
    } catch {
      return folders.unwatch(rel) // deleted or renamed away: the update drops what was under it
    }
    // New, or replaced under the same name: files may have landed before its watch did.
    if (isDir) void addTree(rel, true)
  }

  /** Watches `top` and every unignored directory under it; with `files`, re-indexes their files too. */
  const addTree = (top: string, files: boolean) => {
    if (top !== '') folders.unwatch(top)
    return gentleWalk(top, {
      abs,
      sandbox: opts.sandbox,
      stopped: () => closed || rescans !== undefined,
      enter: watchDir,
      file: files ? changed : undefined,
    })
  }

  /** Every file of `dir` goes to the next update (events were lost, or came before the watch). */
  const rescan = (dir: string) => {
    for (const rel of unignoredFiles(abs(dir), dir, opts.sandbox)) changed(rel)
  }

  const ready = addTree('', false).catch((err: unknown) => opts.onError?.(asError(err)))

  return {
    ready,
    state: () => ({ watches: folders.size(), rescanning: rescans !== undefined }),
    flush: updates.flush,
    async close() {
      closed = true
      if (rescans) clearInterval(rescans)
      const settled = updates.close()
      // The walk stops at its next directory; closed watches report nothing. Closing
      // ~3,000 of them takes ~0.1 s: done a slice at a time on timers that do not keep
      // the process alive, so a CLI run that ends here exits without waiting for it.
      closeInSlices(folders.closeAll())
      await settled
    },
  }
}

/**
 * What the watcher feeds the index: changed paths gathered until `debounceMs` of quiet,
 * then re-read in one update; or, past the watch budget, a build of the whole tree.
 * One at a time, in order.
 */
function createUpdateFeed(index: CodeIndex, opts: WatchOptions) {
  const debounceMs = opts.debounceMs ?? DEFAULT_DEBOUNCE_MS
  const pending = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let closed = false
  const reportError = (err: unknown) => opts.onError?.(asError(err))
  const clear = () => {
    pending.clear()
    if (timer) clearTimeout(timer)
    timer = undefined
  }

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer)
    timer = undefined
    if (pending.size === 0 || closed) return running
    const paths = [...pending]
    pending.clear()
    running = running
      .then(() => index.update(paths))
      .then((report) => opts.onUpdate?.(report))
      .catch(reportError)
    return running
  }
  return {
    flush,
    /** A changed path (absolute): re-read after the next quiet. */
    add(abs: string): void {
      pending.add(abs)
      if (timer) clearTimeout(timer)
      timer = setTimeout(() => void flush(), debounceMs)
    },
    /** A build of the whole tree, after what is running. */
    rebuild(): void {
      running = running
        .then(() => index.build())
        .then(() => undefined)
        .catch(reportError)
    },
    /** Drops what is pending. */
    clear,
    /** Nothing more is run; resolves when what runs now has finished. */
    close(): Promise<void> {
      closed = true
      clear()
      return running
    },
  }
}

/**
 * The folders watched (root-relative, '' is the root), at most `budget` of them. `onEvent`
 * gets an entry's name, or undefined when the system could not say which entry changed.
 */
function createFolderWatches(
  abs: (rel: string) => string,
  budget: number,
  onError: ((error: Error) => void) | undefined,
  onEvent: (dir: string, name: string | undefined) => void,
) {
  /** Each folder's stop (folderWatches.ts: the watch is shared with other watchers of the folder). */
  const watches = new Map<string, () => void>()
  let exhausted = false
  return {
    size: () => watches.size,
    /** Watches `dir` (again); false, watching nothing, when the budget is spent. */
    watch(dir: string): boolean {
      if (!watches.has(dir) && watches.size >= budget) return false
      watches.get(dir)?.()
      try {
        const stop = watchFolder(abs(dir), {
          onEvent: (name) => onEvent(dir, name),
          // Its directory went away: the parent's watch reports that, and a new one is watched afresh.
          onError: () => {
            stop()
            if (watches.get(dir) === stop) watches.delete(dir)
          },
        })
        watches.set(dir, stop)
      } catch (err) {
        watches.delete(dir) // vanished since it was walked
        // Out of inotify watches or descriptors: the index goes stale there; say so once.
        const code = errnoCode(err)
        if ((code === 'ENOSPC' || code === 'EMFILE') && !exhausted) {
          exhausted = true
          onError?.(asError(err))
        }
      }
      return true
    },
    /** Stops watching `dir` and every folder under it. */
    unwatch(dir: string): void {
      for (const [rel, stop] of watches)
        if (rel === dir || rel.startsWith(dir + '/')) {
          stop()
          watches.delete(rel)
        }
    },
    /** Forgets every watch; returns their stops, not yet called, for the caller (`closeInSlices`). */
    closeAll(): Array<() => void> {
      const all = [...watches.values()]
      watches.clear()
      return all
    },
  }
}

/** Watches closed per slice (see `close`). */
const CLOSE_SLICE = 250

function closeInSlices(list: Array<() => void>): void {
  for (const stop of list.splice(0, CLOSE_SLICE)) stop()
  if (list.length > 0) setTimeout(() => closeInSlices(list), 0).unref()
}
