import fs from 'node:fs'
import { childOf, onDisk } from '../containment/paths'
import { RACY_MARGIN_MS } from './statCache'
import { CTIME_FIELDS, STAT_OK, statWithCtime } from './statFiles'

/**
 * Files whose rules decide what a listing leaves out. Watched in every watched
 * directory, present or not: editing one in place changes no directory.
 */
export const IGNORE_FILE_NAMES: readonly string[] = ['.gitignore', '.ignore', '.rgignore']

/**
 * A file listing kept for the next snapshot, in the spirit of git's untracked
 * cache. Creating, removing or renaming an entry updates its parent directory's
 * mtime and ctime, so while no directory the listing descended into has changed
 * and no ignore file in them has changed, listing again would return the same
 * paths; the snapshotter then only stats the files. When some directories did
 * change (a restore just wrote into them), reading those few again tells what a
 * new listing would: files come and go by name, everything else lists again.
 */
export interface ReusableListing {
  /** The listed paths, sorted. */
  readonly paths: readonly string[]
  /** Every directory the listing covers, root-relative ('' for the root). */
  readonly directories: readonly string[]
  /**
   * The paths a listing would return now (sorted): the same array while nothing
   * was added or removed, a new one when re-reading the changed directories
   * accounted for every change, undefined when only a new listing can tell.
   * `now` is Date.now() (or the snapshotter's clock), taken before calling.
   */
  refresh(now: number): readonly string[] | undefined
  /**
   * Stats the directories and ignore files the next `refresh` checks on a helper
   * thread, for that refresh to use instead of stat'ing them on this one (~2,700
   * directories on a big tree: tens of ms at a session's start).
   */
  prefetch(): Promise<void>
  /** What `restoreListing` needs to rebuild this listing in another process (shared arrays: never modify). */
  state(): ListingState
}

/**
 * A listing in plain arrays, to be saved and restored by a later process
 * (savedState.ts): the directories' and ignore files' stats are what tells,
 * there as here, whether the listing still holds.
 */
export interface ListingState {
  paths: readonly string[]
  directories: readonly string[]
  /** Per directory: ino, mtimeMs, ctimeMs. */
  dirStats: Float64Array
  /** Per directory: 1 when its timestamps vouch for the listing, 0 when it must be read again. */
  trusted: Uint8Array
  /** Per directory and name of IGNORE_FILE_NAMES: ino, size, mtimeMs, ctimeMs; ino -1 when absent. */
  fileStats: Float64Array
}

/**
 * Whether a root-relative path is left out of the listing (ignored or denied,
 * or a name the caller would drop). Must agree with the listing itself: a file
 * it wrongly keeps would be captured although a listing would not show it.
 */
export type IsIgnored = (rel: string) => boolean

/** What a refresh reads of a stat (fs.Stats, or a helper's numbers). */
type FoundStat = Pick<fs.Stats, 'isDirectory' | 'size' | 'mtimeMs' | 'ino' | 'ctimeMs'>

/** A prefetched stat as statSync would give it (undefined: it could not be stat'ed). */
function fromPrefetch(stats: Float64Array, k: number): FoundStat | undefined {
  const o = k * CTIME_FIELDS
  if (stats[o] !== STAT_OK) return undefined
  const mode = stats[o + 4]
  return {
    isDirectory: () => (mode & fs.constants.S_IFMT) === fs.constants.S_IFDIR,
    size: stats[o + 1],
    mtimeMs: stats[o + 2],
    ino: stats[o + 3],
    ctimeMs: stats[o + 5],
  }
}

/** Per directory: ino, mtimeMs, ctimeMs. */
const DIR_FIELDS = 3
/** Per ignore file: ino, size, mtimeMs, ctimeMs; ino -1 when absent. */
const FILE_FIELDS = 4

/** What the listing says one directory holds, by name. */
interface Contents {
  files: Set<string>
  subdirs: Set<string>
  /** Names seen before and found ignored: valid while no ignore file changes. */
  ignoredFiles: Set<string>
  ignoredDirs: Set<string>
}

/**
 * Records what `paths` were listed from. `directories` are every directory the
 * listing descended into (root-relative, '' for the root), including those that
 * hold no listed file; the parents of listed paths are added here. `listedAt` is
 * Date.now() taken before the listing started.
 *
 * Racy case: a directory changed at a moment too close to the listing (within
 * RACY_MARGIN_MS of `listedAt`, or after it) may have changed after the listing
 * read it, with a timestamp a later change could repeat. With `isIgnored` such a
 * directory is read again by the next `refresh`; without it the listing is not
 * kept. Returns undefined then, when an ignore file is that recent, or when a
 * directory could not be stat'ed.
 */
export function recordListing(
  root: string,
  listing: ListingTaken,
  isIgnored?: IsIgnored,
): ReusableListing | undefined {
  try {
    return record(root, listing, isIgnored)
  } catch {
    return undefined // e.g. ENOTDIR: a directory was replaced while we looked
  }
}

/** A listing as it was taken: its files, its directories, and Date.now() before it started. */
export interface ListingTaken {
  paths: readonly string[]
  directories: readonly string[]
  listedAt: number
}

function record(
  root: string,
  { paths: listedPaths, directories, listedAt }: ListingTaken,
  isIgnored: IsIgnored | undefined,
): ReusableListing | undefined {
  const dirs = new Set(directories)
  dirs.add('')
  for (const p of listedPaths) {
    for (let cut = p.lastIndexOf('/'); cut > 0; cut = p.lastIndexOf('/', cut - 1)) {
      const parent = p.slice(0, cut)
      if (dirs.has(parent)) break
      dirs.add(parent)
    }
  }
  const trustedBefore = listedAt - RACY_MARGIN_MS
  const dirRels = [...dirs]
  const { dirs: dirPaths, files: filePaths } = absolutePaths(root, dirRels)
  const dirStats = new Float64Array(dirPaths.length * DIR_FIELDS)
  // 1 when the directory's timestamps vouch for the listing, 0 when it must be read again.
  const trusted = new Uint8Array(dirPaths.length)
  for (let i = 0; i < dirPaths.length; i++) {
    const st = fs.statSync(dirPaths[i], { throwIfNoEntry: false })
    if (!st?.isDirectory()) return undefined
    const old = st.mtimeMs < trustedBefore && st.ctimeMs < trustedBefore
    if (!old && !isIgnored) return undefined
    dirStats.set([st.ino, st.mtimeMs, st.ctimeMs], i * DIR_FIELDS)
    trusted[i] = old ? 1 : 0
  }
  const fileStats = new Float64Array(filePaths.length * FILE_FIELDS)
  for (let i = 0; i < filePaths.length; i++) {
    const st = fs.statSync(filePaths[i], { throwIfNoEntry: false })
    if (!st) {
      fileStats[i * FILE_FIELDS] = -1
      continue
    }
    if (st.mtimeMs >= trustedBefore || st.ctimeMs >= trustedBefore) return undefined
    fileStats.set([st.ino, st.size, st.mtimeMs, st.ctimeMs], i * FILE_FIELDS)
  }

  return restoreListing(
    root,
    { paths: listedPaths, directories: dirRels, dirStats, trusted, fileStats },
    isIgnored,
  )
}

/** The directories on disk, and each one's IGNORE_FILE_NAMES in order. */
function absolutePaths(root: string, dirRels: readonly string[]): { dirs: string[]; files: string[] } {
  const dirs = dirRels.map((d) => onDisk(root, d))
  return { dirs, files: dirs.flatMap((d) => IGNORE_FILE_NAMES.map((name) => `${d}/${name}`)) }
}

/**
 * What `prefetch` stats: every directory, then each ignore file that was present
 * (`files`: its index in the ignore files → its index in `rels`).
 */
function prefetchPlan(
  dirRels: readonly string[],
  fileStats: Float64Array,
): { files: Map<number, number>; rels: string[] } {
  const files = new Map<number, number>()
  const rels = [...dirRels]
  for (let i = 0; i < dirRels.length * IGNORE_FILE_NAMES.length; i++) {
    if (fileStats[i * FILE_FIELDS] === -1) continue
    files.set(i, rels.length)
    const d = dirRels[Math.floor(i / IGNORE_FILE_NAMES.length)]
    const name = IGNORE_FILE_NAMES[i % IGNORE_FILE_NAMES.length]
    rels.push(childOf(d, name))
  }
  return { files, rels }
}

/** An ignore file's stat still the one recorded at `at` in `fileStats` (inode, size, mtime, ctime). */
function sameFileStat(st: FoundStat, fileStats: Float64Array, at: number): boolean {
  return (
    st.ino === fileStats[at] &&
    st.size === fileStats[at + 1] &&
    st.mtimeMs === fileStats[at + 2] &&
    st.ctimeMs === fileStats[at + 3]
  )
}

/**
 * The listing `state` describes, as `recordListing` made it (in this process or
 * another): its first `refresh` checks every directory and ignore file against
 * the recorded stats, so a state from an older process is trusted no further
 * than a listing kept in memory. `state` must come from `ReusableListing.state`
 * with the same root; its arrays are taken over.
 */
export function restoreListing(root: string, state: ListingState, isIgnored?: IsIgnored): ReusableListing {
  const { directories: dirRels, dirStats, trusted, fileStats } = state
  // Made when a refresh first stats on this thread or reads a directory: a session whose
  // stats were prefetched on a helper never needs them (~40,000 strings on a big tree).
  let onDiskPaths: ReturnType<typeof absolutePaths> | undefined
  const absolute = () => (onDiskPaths ??= absolutePaths(root, dirRels))
  let paths = state.paths
  // Built on the first re-read: most snapshots of an unchanged tree never need it.
  let contents: Map<string, Contents> | undefined
  // From `prefetch`, for the next refresh only: the directories' stats, then those of the
  // ignore files that were present (`files`: index among the ignore files → record).
  let prefetched: { files: Map<number, number>; stats: Float64Array } | undefined

  return {
    get paths() {
      return paths
    },
    directories: dirRels,
    state: () => ({ paths, directories: dirRels, dirStats, trusted, fileStats }),
    refresh(now) {
      const pre = prefetched
      prefetched = undefined
      try {
        return refreshed(now, pre)
      } catch {
        return undefined // vanished or unreadable while we looked: list again
      }
    },
    async prefetch() {
      const { files, rels } = prefetchPlan(dirRels, fileStats)
      prefetched = { files, stats: await statWithCtime(root, rels) }
    },
  }

  function refreshed(now: number, pre: typeof prefetched): readonly string[] | undefined {
    const changed: Array<{ i: number; st: FoundStat }> = []
    // 1 for a directory whose trusted timestamps are unchanged: no name in it came or went.
    const same = new Uint8Array(dirRels.length)
    for (let i = 0, at = 0; i < dirRels.length; i++, at += DIR_FIELDS) {
      const st = pre ? fromPrefetch(pre.stats, i) : fs.statSync(absolute().dirs[i], { throwIfNoEntry: false })
      // A directory gone or replaced: what was below it is anyone's guess.
      if (!st?.isDirectory() || st.ino !== dirStats[at]) return undefined
      if (trusted[i] && st.mtimeMs === dirStats[at + 1] && st.ctimeMs === dirStats[at + 2]) {
        same[i] = 1
        continue
      }
      if (!isIgnored) return undefined
      changed.push({ i, st })
    }
    const ignoreFiles = dirRels.length * IGNORE_FILE_NAMES.length
    for (let i = 0, at = 0; i < ignoreFiles; i++, at += FILE_FIELDS) {
      // An ignore file that was absent from an unchanged directory is absent still: creating
      // it would have changed the directory. One that exists may have been edited in place.
      if (fileStats[at] === -1 && same[Math.floor(i / IGNORE_FILE_NAMES.length)]) continue
      const k = pre?.files.get(i)
      const st =
        pre && k !== undefined
          ? fromPrefetch(pre.stats, k)
          : fs.statSync(absolute().files[i], { throwIfNoEntry: false })
      if (!st) {
        if (fileStats[at] !== -1) return undefined
        continue
      }
      if (!sameFileStat(st, fileStats, at)) return undefined
    }
    if (changed.length === 0) return paths

    contents ??= contentsOf(dirRels, paths)
    const added: string[] = []
    const removed = new Set<string>()
    const updates: Array<{ c: Contents; added: string[]; removed: string[] }> = []
    // The stats above were taken before these reads: a change after them shows next time.
    for (const { i } of changed) {
      const u = reread(dirRels[i], absolute().dirs[i], contents.get(dirRels[i])!, isIgnored!)
      if (!u) return undefined
      for (const name of u.added) added.push(childOf(dirRels[i], name))
      for (const name of u.removed) removed.add(childOf(dirRels[i], name))
      updates.push(u)
    }

    // Every changed directory is accounted for: remember what it holds now.
    const trustedNow = now - RACY_MARGIN_MS
    for (const { i, st } of changed) {
      dirStats.set([st.ino, st.mtimeMs, st.ctimeMs], i * DIR_FIELDS)
      // Changed too recently: it could change again within the same timestamp, so read it next time too.
      trusted[i] = st.mtimeMs < trustedNow && st.ctimeMs < trustedNow ? 1 : 0
    }
    for (const u of updates) {
      for (const name of u.added) u.c.files.add(name)
      for (const name of u.removed) u.c.files.delete(name)
    }
    if (added.length > 0 || removed.size > 0) paths = merged(paths, removed, added.sort())
    return paths
  }
}

/** Names per directory, from the walk's directories and the listed paths. */
function contentsOf(dirRels: readonly string[], paths: readonly string[]): Map<string, Contents> {
  const contents = new Map<string, Contents>()
  for (const d of dirRels) {
    contents.set(d, { files: new Set(), subdirs: new Set(), ignoredFiles: new Set(), ignoredDirs: new Set() })
  }
  for (const d of dirRels) {
    if (d === '') continue
    const cut = d.lastIndexOf('/')
    contents.get(cut < 0 ? '' : d.slice(0, cut))?.subdirs.add(d.slice(cut + 1))
  }
  for (const p of paths) {
    const cut = p.lastIndexOf('/')
    contents.get(cut < 0 ? '' : p.slice(0, cut))?.files.add(p.slice(cut + 1))
  }
  return contents
}

/**
 * Reads one changed directory and tells which listed files appeared and
 * disappeared in it; undefined for anything a name cannot settle (a new or
 * removed subdirectory, a new ignore file, a link or other special file).
 */
function reread(
  rel: string,
  abs: string,
  c: Contents,
  isIgnored: IsIgnored,
): { c: Contents; added: string[]; removed: string[] } | undefined {
  const added: string[] = []
  let filesSeen = 0
  let subdirsSeen = 0
  const entries = fs.readdirSync(abs, { withFileTypes: true })
  for (const e of entries) {
    const name = e.name
    const childRel = childOf(rel, name)
    if (e.isDirectory()) {
      if (c.subdirs.has(name)) subdirsSeen++
      else if (c.ignoredDirs.has(name)) continue
      else if (isIgnored(childRel)) c.ignoredDirs.add(name)
      else return undefined // a new directory: its whole content is new, list again
      continue
    }
    if (c.files.has(name)) {
      if (!e.isFile()) return undefined // a listed file became something else
      filesSeen++
      continue
    }
    if (e.isFile() && c.ignoredFiles.has(name)) continue
    if (isIgnored(childRel)) {
      if (e.isFile()) c.ignoredFiles.add(name)
      continue
    }
    // Unchanged ignore files were checked by their stats; a new one changes the rules.
    if (!e.isFile() || IGNORE_FILE_NAMES.includes(name)) return undefined
    added.push(name)
  }
  if (subdirsSeen !== c.subdirs.size) return undefined // a directory went away
  const removed: string[] = []
  if (filesSeen !== c.files.size) {
    const present = new Set(entries.map((e) => e.name))
    for (const name of c.files) if (!present.has(name)) removed.push(name)
  }
  return { c, added, removed }
}

/** `paths` without `removed`, with `added` merged in; both inputs sorted. */
function merged(paths: readonly string[], removed: ReadonlySet<string>, added: readonly string[]): string[] {
  const out: string[] = []
  let j = 0
  for (const p of paths) {
    if (removed.has(p)) continue
    while (j < added.length && added[j] < p) out.push(added[j++])
    out.push(p)
  }
  while (j < added.length) out.push(added[j++])
  return out
}
