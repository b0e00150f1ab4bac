import fs from 'node:fs'
import path from 'node:path'
import { resolveContextWindow } from '../context/windows'
import { buildRepoMap, repoMapBudget, type RepoMap } from '../context/repo-map'
import { checkStateFile } from '../codeindex/checkState'
import {
  createCodeIndex,
  type BuildProgress,
  type BuildReport,
  type CodeIndex,
  type VouchedListing,
} from '../codeindex/code-index'
import { watchIndex, type IndexWatcher } from '../codeindex/watch'
import type { ModelProvider } from '../providers/types'
import { childOf } from '../containment/paths'
import type { Sandbox } from '../containment/types'
import type { Store } from '../store/types'
import { errorMessage } from '../../shared/errors'

/**
 * The code side of a session's context (issue: code intelligence): the project's
 * index, brought up to date in the background (only changed files are parsed),
 * and the repo map for the system prompt. One index per store and root, kept
 * across sessions. The session never waits for a big build: after a short wait
 * the map is made of what is indexed so far, and says so; on an index an earlier
 * build finished, it does not wait at all.
 */
export interface CodeContext {
  index?: CodeIndex
  repoMap?: RepoMap
  /** Things the user should know (a grammar that failed), said once. */
  notices: string[]
  /** The build, running on after the session started; undefined once it failed. */
  indexing: Promise<BuildReport | undefined>
  /** Keeps the index fresh while the session runs; `close()` stops it and the build. */
  watch(): IndexWatcher | undefined
}

/** How long a session start waits for the index before it goes on with what is there. */
export const INDEX_WAIT_MS = 150
/**
 * A tree of at most this many files (not ignored) is small: its first index is waited for
 * up to SMALL_TREE_WAIT_MS, so the first request holds its symbols. Finding that out reads
 * at most SMALL_TREE_DIRS folders (SMALL_TREE_ENTRIES entries), milliseconds on any tree.
 */
export const SMALL_TREE_FILES = 1_000
export const SMALL_TREE_WAIT_MS = 3_000
const SMALL_TREE_ENTRIES = 4 * SMALL_TREE_FILES
const SMALL_TREE_DIRS = 100
/** Least time between two progress reports of one build (the first and the last always go). */
const PROGRESS_EVERY_MS = 200

type ProgressListener = (root: string, progress: BuildProgress) => void
const progressListeners = new Set<ProgressListener>()

/**
 * Hears the progress of every code index build in this process (the CLI's
 * progress line, the app's status bar), at most every 200 ms per build.
 */
export function onIndexProgress(listener: ProgressListener): () => void {
  progressListeners.add(listener)
  return () => progressListeners.delete(listener)
}

function progressReporter(root: string): (p: BuildProgress) => void {
  let last = 0
  let phase = ''
  return (p) => {
    const now = performance.now()
    if (p.phase === phase && p.phase !== 'done' && now - last < PROGRESS_EVERY_MS) return
    last = now
    phase = p.phase
    for (const l of progressListeners) l(root, p)
  }
}

const indexes = new WeakMap<Store, Map<string, CodeIndex>>()

/** Where the index of `root` keeps its rows for the next process's check (checkState.ts). */
export function indexStateFile(store: Store, root: string): string {
  return checkStateFile(path.dirname(store.path), root)
}

/** The one code index per store and project, kept across sessions. */
export function indexFor(store: Store, sandbox: Sandbox): CodeIndex {
  let byRoot = indexes.get(store)
  if (!byRoot) indexes.set(store, (byRoot = new Map()))
  let index = byRoot.get(sandbox.root)
  if (!index) {
    index = createCodeIndex(store, {
      root: sandbox.root,
      sandbox,
      stateFile: indexStateFile(store, sandbox.root),
    })
    byRoot.set(sandbox.root, index)
  }
  return index
}

export async function prepareCodeContext(
  store: Store,
  sandbox: Sandbox,
  provider: ModelProvider,
  opts: {
    /** Stops the index's build (what was indexed is kept). */
    signal?: AbortSignal
    waitMs?: number
    /** The project's files, vouched for (see CodeIndex.build): a finished index's check uses them. */
    listing?: () => Promise<VouchedListing | undefined>
    /** `listing` comes from the project's first baseline (see below). */
    firstBaseline?: boolean
  } = {},
): Promise<CodeContext> {
  const { signal } = opts
  const notices: string[] = []
  let index: CodeIndex | undefined
  // Stopped with the session's watcher (or the caller's signal); what was indexed is kept.
  const stop = new AbortController()
  const stopBuild = () => stop.abort()
  signal?.addEventListener('abort', stopBuild, { once: true })
  let indexing: Promise<BuildReport | undefined> = Promise.resolve(undefined)
  try {
    index = indexFor(store, sandbox)
    // A new or partial index lists at once: its session may wait for it (below). Beside the
    // project's first baseline, though, it starts from that baseline's listing and stats: on a
    // big tree its parse threads then start once the baseline's read threads are done, not beside
    // them (the first session peaked at ~700 MB with both at work, and each slowed the other on
    // 2 cores); a small tree's first baseline takes milliseconds, so its wait is hardly longer.
    const listing = index.complete() || opts.firstBaseline ? opts.listing : undefined
    indexing = index.build({ signal: stop.signal, onProgress: progressReporter(sandbox.root), listing }).then(
      (report) => report,
      () => undefined, // a failed background build leaves the index as it was
    )
    // A finished index (an earlier process built it) is the whole project as last seen:
    // the session starts at once while the build checks it against the disk. A small
    // tree's first build is waited for (bounded), a big one's for a moment only.
    // The walk that tells a small tree counts against the wait, so a big tree's is still 150 ms.
    const since = performance.now()
    const wait = index.complete()
      ? 0
      : (opts.waitMs ??
        ((await Promise.race([smallTree(sandbox), indexing.then(() => false)]))
          ? SMALL_TREE_WAIT_MS
          : INDEX_WAIT_MS) -
          (performance.now() - since))
    const waited = wait > 0 ? await Promise.race([indexing, delay(wait)]) : undefined
    if (waited) {
      if (waited.warning) notices.push(waited.warning)
      for (const grammar of waited.grammarErrors) notices.push(`code index: ${grammar}`)
    }
  } catch (err) {
    // Without an index the code tools say so and everything else works.
    notices.push(`The code index could not be built (${errorMessage(err)}); the code tools are unavailable.`)
    index = undefined
  }
  let repoMap: RepoMap | undefined
  if (index) {
    const window = await resolveContextWindow(provider, signal)
    repoMap = buildRepoMap(index, { budgetTokens: repoMapBudget(window), model: provider.model })
  }
  const built = index
  return {
    index,
    repoMap,
    notices,
    indexing,
    watch() {
      if (!built) return undefined
      const watcher = watchIndex(built, { sandbox })
      return {
        ...watcher,
        async close() {
          stopBuild()
          await Promise.all([watcher.close(), indexing])
        },
      }
    },
  }
}

/**
 * True when the project has at most SMALL_TREE_FILES files outside denied folders, found by a
 * breadth-first walk that gives up (the tree is not small) after SMALL_TREE_ENTRIES entries or
 * SMALL_TREE_DIRS folders. Folders are judged by name only (the denylist: node_modules/, dist/,
 * .git): reading each folder's .gitignore would cost more than the walk.
 */
export async function smallTree(sandbox: Sandbox): Promise<boolean> {
  const queue = ['']
  let files = 0
  let entries = 0
  for (let dirs = 0; queue.length > 0; dirs++) {
    if (dirs >= SMALL_TREE_DIRS) return false
    const dir = queue.shift()!
    let names: fs.Dirent[]
    try {
      // Asynchronous: the session's baseline and the build go on meanwhile.
      names = await fs.promises.readdir(path.join(sandbox.root, dir), { withFileTypes: true })
    } catch {
      continue
    }
    if ((entries += names.length) > SMALL_TREE_ENTRIES) return false
    for (const entry of names) {
      const rel = childOf(dir, entry.name)
      if (entry.isDirectory()) {
        if (!sandbox.isDenied(rel)) queue.push(rel)
      } else if (entry.isFile() && ++files > SMALL_TREE_FILES) return false
    }
  }
  return true
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref())
}
