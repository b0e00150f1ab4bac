import { createHash } from 'node:crypto'
import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import { childOf, onDisk, parentOf } from '../containment/paths'
import { isRefusal, type Sandbox } from '../containment/types'
import { createChangeTracker, type ChangeTracker } from './changeTracker'
import { loadFolders, saveFolders, type RecordedFolder } from './ignoredState'
import { byPath } from './sortedPaths'
import { CTIME_FIELDS, STAT_OK, statWithCtime } from './statFiles'

/*
 * Files under ignored folders (node_modules/, dist/, build output) are left out of snapshots: a
 * big node_modules would cost every checkpoint. But a command may change them — code appended to
 * node_modules/left-pad/index.js runs at the next `npm test` — and review must see that. So,
 * before a session's first command, one stat-only walk records every file of the ignored folders
 * (size, mtime, inode, ctime: no file is read), and a later look compares. ctime is in the key
 * because a command can put size and mtime back (`touch -r`) but not ctime.
 *
 * What a look after a command costs (docs/snapshots.md#ignored-folders): while an inotify
 * tracker (changeTracker.ts) watches every folder the walk entered and vouches that it missed
 * nothing, only the folders and files its events name are looked at again, and a command that
 * touched nothing costs no system call at all. Where it cannot vouch (off Linux, more folders
 * than the watch budget, a queue overflow), every folder is stat'ed and only those whose mtime
 * or ctime moved are read again, and every ignored file is stat'ed, on helper threads
 * (statFiles.ts). Measured in bench/ignored.bench.ts on a real node_modules.
 *
 * A changed file is read through the gate (a secret by name, location or content is listed by path
 * and status only: no size's worth of it, no hash, no bytes) and hashed; one of at most
 * CONTENT_MAX_BYTES is kept in the blob store too (`keep`), within CONTENT_BUDGET_BYTES of new
 * content per look, so a checkpoint can show what a command wrote there. An `npm install` that
 * adds thousands of files keeps the first budget's worth, in path order, and hashes the rest.
 */

export interface IgnoredChange {
  path: string
  status: 'added' | 'modified' | 'deleted'
  /** Bytes now (absent for a deleted file). */
  size?: number
  /** sha256 (hex) of the bytes now, for a present file of at most HASH_MAX_BYTES the gate admits. */
  sha256?: string
  /** The bytes are in the blob store under `sha256` (at most CONTENT_MAX_BYTES, within the budget). */
  stored?: true
}

/** A changed file up to this size is hashed (the walk itself reads nothing). */
export const HASH_MAX_BYTES = 16 * 1024 * 1024
/** A changed file up to this size has its bytes kept (`stored`). */
export const CONTENT_MAX_BYTES = 1024 * 1024
/** New bytes kept per look at most: past it, changed files are hashed but not kept. */
export const CONTENT_BUDGET_BYTES = 32 * 1024 * 1024

export interface IgnoredFolders {
  /** The stat-only walk; resolves to how many top ignored folders and files it recorded. */
  record(): Promise<{ folders: number; files: number }>
  /** Files added, changed or deleted under ignored folders since `record`, sorted by path. */
  changes(): Promise<IgnoredChange[]>
  /** Stops the watches. */
  close(): void
}

/** Folders never walked: git's own store (the git tools show it) — not the project's files. */
const NEVER = new Set(['.git'])

/** A folder as the record read it; its mtime and ctime serve the look without a tracker too. */
type Folder = RecordedFolder

/** What the record learns from the listing, where it keeps what it found, whether it watches. */
export interface IgnoredFoldersOptions {
  /** false: never watch (the look without a tracker, everywhere). */
  track?: boolean
  /**
   * The files the listing holds now (the snapshot's), when known: a folder holding one is not
   * ignored, which spares the rule's test (~0.1 ms a folder: its `.gitignore` files looked up) for
   * nearly every folder.
   */
  listed?: () => readonly string[] | undefined
  /** The folders the listing descended into, when known: the same of them, and of those holding no file. */
  listedFolders?: () => readonly string[] | undefined
  /** Stores a changed file's bytes (the blob store); without it nothing is kept. */
  keep?: (sha256: string, data: Buffer) => void
  /**
   * Where the folders are kept for the next process's record (ignoredState.ts), which then reads
   * again only those that moved.
   */
  stateFile?: string
  /** The clock the kept folders' trust is reckoned by (tests). */
  now?: () => number
}

/**
 * `project.isIgnored(rel)` is the listing's rule (the sandbox's): true for a path the listing
 * leaves out; `project.gate` reads changed files. Each top ignored folder (one inside an unignored
 * folder) is walked whole; links are not followed.
 */
export function createIgnoredFolders(
  project: Pick<Sandbox, 'root' | 'gate' | 'isIgnored'>,
  opts: IgnoredFoldersOptions = {},
): IgnoredFolders {
  const { root } = project
  const folders = new Map<string, Folder>()
  const tree: FolderTree = {
    root,
    folders,
    isIgnored: (rel) => project.isIgnored(rel),
    listed: opts.listed,
    listedFolders: opts.listedFolders,
  }
  let recorded: Map<string, Float64Array> | undefined
  const current = new Map<string, Float64Array>()
  let last: IgnoredChange[] = []
  const hashes = new Map<string, Hashed>()
  // Made by the first record: a session that runs no command never sets up a tracker.
  let tracker: ChangeTracker | undefined

  /** Stats `paths` into `current` (helper threads); a path no longer listed is dropped. */
  async function statInto(paths: readonly string[]): Promise<void> {
    const raw = await statWithCtime(root, paths)
    paths.forEach((p, i) => current.set(p, raw.slice(i * CTIME_FIELDS, (i + 1) * CTIME_FIELDS)))
  }

  /**
   * Stats every folder (unless `folderStats` is false: they were, and nothing moved since) and every
   * ignored file afresh, and watches the folders as they are now.
   */
  async function rewatch(folderStats = true): Promise<void> {
    if (folderStats) await statFolders(root, folders)
    // Watch before the file stats: a change after them is an event for the next look.
    tracker?.watch([...folders.keys()]) // past the watch budget it watches nothing (changeTracker.ts)
    current.clear()
    await statInto(ignoredFiles(folders))
  }

  /** Brings `current` up to date; false when the tracker vouches that nothing changed at all. */
  async function look(): Promise<boolean> {
    const report = await tracker?.collect()
    if (report?.trusted && tracker!.watching) {
      if (report.paths.size === 0) return false
      // An event names an entry of a watched folder: that folder is read again, the entry stat'ed.
      const dirty = knownParents(folders, report.paths)
      const before = new Set(ignoredFiles(folders))
      if (await reread(tree, dirty)) return (await rewatch(), true)
      const files = ignoredFiles(folders)
      const listed = new Set(files)
      for (const p of before) if (!listed.has(p)) current.delete(p)
      const named = [...report.paths].filter((p) => listed.has(p))
      await statInto([...new Set([...named, ...files.filter((p) => !before.has(p))])])
      return true
    }
    // Without the tracker's word: folders whose stat moved are read again, every file is stat'ed.
    if (await reread(tree, await statFolders(root, folders))) return (await rewatch(), true)
    if (tracker && !tracker.watching) tracker.watch([...folders.keys()])
    current.clear()
    await statInto(ignoredFiles(folders))
    return true
  }

  return {
    async record() {
      folders.clear()
      if (opts.track !== false) tracker ??= createChangeTracker(root)
      const lookedAt = (opts.now ?? Date.now)()
      const saved = opts.stateFile ? loadFolders(opts.stateFile, root) : undefined
      const same = saved ? await resume(tree, saved) : (await walk(tree, '', false), false)
      await rewatch(!same)
      if (opts.stateFile && !same) saveFolders(opts.stateFile, root, folders, lookedAt)
      recorded = new Map(current)
      last = []
      return { folders: topFolders(folders), files: recorded.size }
    },
    async changes() {
      if (!recorded) return []
      if (!(await look())) return last.map((c) => ({ ...c }))
      const out = statChanges(recorded, current)
      const hashing: HashLook = { project, hashes, budget: { bytes: CONTENT_BUDGET_BYTES }, keep: opts.keep }
      for (const c of out) await withHash(hashing, c, current.get(c.path))
      last = out.sort(byPath)
      return last.map((c) => ({ ...c }))
    },
    close() {
      tracker?.close()
    },
  }
}

/** The folders walked so far, and what a walk needs to read more. */
interface FolderTree {
  root: string
  folders: Map<string, Folder>
  /** The listing's rule: true for a path the listing leaves out. */
  isIgnored: (rel: string) => boolean
  /** The files the listing holds now, when known (see createIgnoredFolders). */
  listed: (() => readonly string[] | undefined) | undefined
  /** The folders the listing descended into, when known (see createIgnoredFolders). */
  listedFolders: (() => readonly string[] | undefined) | undefined
}

/** Reads `start` (unless its entries are given) and everything new below it. */
async function walk(
  tree: FolderTree,
  start: string,
  ignored: boolean,
  startEntries?: readonly Dirent[],
): Promise<void> {
  const { root, folders } = tree
  const unignored = unignoredFolders(tree)
  for (
    let level = [{ dir: start, ignored }], below: typeof level = [];
    level.length > 0;
    level = below, below = []
  ) {
    await Promise.all(
      level.map(async ({ dir, ignored: inside }) => {
        const f: Folder = { ignored: inside, subdirs: [], files: [], mtime: NaN, ctime: NaN }
        for (const e of dir === start && startEntries ? startEntries : await entries(root, dir)) {
          const rel = childOf(dir, e.name)
          if (e.isDirectory()) {
            if (dir === '' && NEVER.has(e.name)) continue
            f.subdirs.push(rel)
            if (!folders.has(rel))
              below.push({ dir: rel, ignored: isIgnoredBelow(tree, unignored, rel, inside) })
          } else if (inside && e.isFile()) f.files.push(rel)
        }
        folders.set(dir, f)
      }),
    )
  }
}

/**
 * Whether the folder `rel` is ignored, in a folder that is (`inside`) or not: everything inside an
 * ignored folder is; a folder the listing shows (`unignored`) is not; the rules decide the rest.
 */
function isIgnoredBelow(
  tree: FolderTree,
  unignored: ReadonlySet<string> | undefined,
  rel: string,
  inside: boolean,
): boolean {
  return inside || (!unignored?.has(rel) && tree.isIgnored(rel))
}

/**
 * The folders an earlier process recorded (ignoredState.ts), brought up to date in `tree`: those
 * whose stat moved are read again, and a folder the rules now judge otherwise (an ignore file
 * edited, a folder's first listed file) is walked afresh with all below it. True when nothing
 * moved and no rule changed: what was saved still holds, stats and all.
 */
async function resume(tree: FolderTree, saved: ReadonlyMap<string, Folder>): Promise<boolean> {
  const { folders } = tree
  for (const [dir, f] of saved) folders.set(dir, f)
  const moved = await statFolders(tree.root, folders)
  // Most of the tree moved (or was saved too soon after it changed to be trusted): one walk reads
  // the folders of a level together, where reading each moved one again goes one at a time.
  if (moved.length > folders.size / 2) {
    folders.clear()
    await walk(tree, '', false)
    return false
  }
  await reread(tree, moved)
  const unignored = unignoredFolders(tree)
  const judged: { dir: string; ignored: boolean }[] = []
  for (const f of folders.values()) {
    if (f.ignored) continue // what is inside an ignored folder is ignored, whatever the rules say
    for (const sub of f.subdirs) {
      const ignored = isIgnoredBelow(tree, unignored, sub, false)
      if (folders.get(sub)?.ignored !== ignored) judged.push({ dir: sub, ignored })
    }
  }
  const walked: string[] = []
  for (const { dir, ignored } of judged) {
    // Found inside one walked afresh (the saved order is the walk's: outer folders first).
    if (walked.some((w) => dir.startsWith(`${w}/`))) continue
    forget(folders, dir)
    await walk(tree, dir, ignored)
    walked.push(dir)
  }
  return moved.length === 0 && judged.length === 0
}

/** How many ignored folders sit in a folder that is not: the tops the record walked whole. */
function topFolders(folders: ReadonlyMap<string, Folder>): number {
  let tops = 0
  for (const [dir, f] of folders) if (f.ignored && dir !== '' && !folders.get(parentOf(dir))?.ignored) tops++
  return tops
}

/** Reads `dirs` again: folders no longer there go, new ones are walked. True when folders changed. */
async function reread(tree: FolderTree, dirs: Iterable<string>): Promise<boolean> {
  const { root, folders } = tree
  let moved = false
  for (const dir of dirs) {
    const was = folders.get(dir)
    if (!was) continue
    const read = await entries(root, dir, true)
    if (read === undefined) {
      forget(folders, dir)
      moved = true
      continue
    }
    folders.delete(dir)
    await walk(tree, dir, was.ignored, read)
    const now = folders.get(dir)!
    const kept = new Set(now.subdirs)
    for (const s of was.subdirs) if (!kept.has(s)) forget(folders, s)
    if (now.subdirs.length !== was.subdirs.length || now.subdirs.some((s) => !was.subdirs.includes(s)))
      moved = true
  }
  return moved
}

/** The folders of `folders` holding one of `paths` (an event's entries). */
function knownParents(folders: ReadonlyMap<string, Folder>, paths: Iterable<string>): Set<string> {
  const out = new Set<string>()
  for (const p of paths) {
    const parent = parentOf(p)
    if (folders.has(parent)) out.add(parent)
  }
  return out
}

/** Drops `dir` and every folder below it (gone, or to be read again whole). */
function forget(folders: Map<string, Folder>, dir: string): void {
  const f = folders.get(dir)
  if (!f) return
  folders.delete(dir)
  for (const s of f.subdirs) forget(folders, s)
}

/** mtime and ctime of every folder, on helper threads; records them, returns those that moved. */
async function statFolders(root: string, folders: Map<string, Folder>): Promise<string[]> {
  const dirs = [...folders.keys()]
  const raw = await statWithCtime(root, dirs)
  const moved: string[] = []
  dirs.forEach((d, i) => {
    const f = folders.get(d)!
    const ok = raw[i * CTIME_FIELDS] === STAT_OK
    const mtime = ok ? raw[i * CTIME_FIELDS + 2] : -1
    const ctime = ok ? raw[i * CTIME_FIELDS + 5] : -1
    if (mtime !== f.mtime || ctime !== f.ctime) moved.push(d)
    f.mtime = mtime
    f.ctime = ctime
  })
  return moved
}

/** The files of the ignored folders, as the last walk found them. */
function ignoredFiles(folders: ReadonlyMap<string, Folder>): string[] {
  const out: string[] = []
  for (const f of folders.values()) if (f.ignored) for (const p of f.files) out.push(p)
  return out
}

/** Files added, changed or deleted between the recorded stats and the current ones (unsorted). */
function statChanges(
  recorded: ReadonlyMap<string, Float64Array>,
  current: ReadonlyMap<string, Float64Array>,
): IgnoredChange[] {
  const out: IgnoredChange[] = []
  for (const [p, now] of current) {
    const was = recorded.get(p)
    if (now[0] !== STAT_OK) continue
    if (!was || was[0] !== STAT_OK) out.push({ path: p, status: 'added', size: now[1] })
    else if (!sameFile(was, now)) out.push({ path: p, status: 'modified', size: now[1] })
  }
  for (const [p, was] of recorded)
    if (was[0] === STAT_OK && (current.get(p)?.[0] ?? 0) !== STAT_OK) out.push({ path: p, status: 'deleted' })
  return out
}

const unignoredByListing = new WeakMap<readonly string[], Set<string>>()

/**
 * Folders the listing shows are not ignored: those it descended into, or else those above its
 * files; made once per listing (a walk asks per folder it reads again).
 */
function unignoredFolders(tree: FolderTree): Set<string> | undefined {
  const descended = tree.listedFolders?.()
  if (descended) return once(descended, () => new Set(descended))
  const files = tree.listed?.()
  return files && once(files, () => foldersOf(files))
}

function once(listing: readonly string[], make: () => Set<string>): Set<string> {
  let folders = unignoredByListing.get(listing)
  if (!folders) unignoredByListing.set(listing, (folders = make()))
  return folders
}

/** Every folder above a listed file (none of them is ignored, or the file would not be listed). */
function foldersOf(files: readonly string[]): Set<string> {
  const out = new Set<string>()
  // The listing is sorted: most files share the folder of the one before, which needs no slice.
  let last = ''
  for (const f of files) {
    const at = f.lastIndexOf('/')
    if (at > 0 && at === last.length && f.startsWith(last)) continue
    last = at > 0 ? f.slice(0, at) : ''
    for (let up = at; up > 0; up = f.lastIndexOf('/', up - 1)) {
      const dir = up === at ? last : f.slice(0, up)
      if (out.has(dir)) break
      out.add(dir)
    }
  }
  return out
}

/** One look's hashing: the gate that reads, the answers kept per file, the bytes left to keep. */
interface HashLook {
  project: Pick<Sandbox, 'gate'>
  /** Per path, the answer for the stat it was read at. */
  hashes: Map<string, Hashed>
  /** New bytes this look may still keep. */
  budget: { bytes: number }
  keep: ((sha256: string, data: Buffer) => void) | undefined
}

interface Hashed {
  /** The stat the answer holds for. */
  key: string
  sha256?: string
  stored?: true
}

/**
 * Reads a changed file through the gate and hashes it, keeping its bytes when small enough and
 * the look's `budget` allows; once per stat: a later look reuses the answer while its stat holds.
 */
async function withHash(look: HashLook, change: IgnoredChange, st: Float64Array | undefined): Promise<void> {
  const { project, hashes, budget, keep } = look
  if (change.size === undefined || change.size > HASH_MAX_BYTES || !st) return
  const key = Array.from(st).join(':')
  let known = hashes.get(change.path)
  if (known?.key !== key) {
    known = { key }
    const data = readGated(project, change.path)
    if (data) {
      known.sha256 = createHash('sha256').update(data).digest('hex')
      if (keep && data.length <= CONTENT_MAX_BYTES && data.length <= budget.bytes) {
        keep(known.sha256, data)
        known.stored = true
        budget.bytes -= data.length
      }
      // Hashing many files (an `npm install`) lets other work in between.
      await new Promise((resolve) => setImmediate(resolve))
    }
    hashes.set(change.path, known)
  }
  if (known.sha256) change.sha256 = known.sha256
  if (known.stored) change.stored = true
}

/** The bytes the gate lets through now (not a secret, not swapped for a link), else undefined. */
function readGated(project: Pick<Sandbox, 'gate'>, rel: string): Buffer | undefined {
  const file = project.gate.resolve(rel, { inIgnoredFolder: true })
  if (isRefusal(file)) return undefined
  const read = project.gate.read(file, { maxBytes: HASH_MAX_BYTES })
  return isRefusal(read) ? undefined : read.data
}

/** Size, mtime, inode, mode and ctime (statWithCtime fields 1–5). */
function sameFile(a: Float64Array, b: Float64Array): boolean {
  return a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && a[4] === b[4] && a[5] === b[5]
}

async function entries(root: string, dir: string, strict?: false): Promise<Dirent[]>
async function entries(root: string, dir: string, strict: true): Promise<Dirent[] | undefined>
async function entries(root: string, dir: string, strict = false) {
  try {
    return await fs.readdir(onDisk(root, dir), { withFileTypes: true })
  } catch {
    return strict ? undefined : [] // vanished or unreadable
  }
}
