import fs from 'node:fs'
import { RACY_MARGIN_MS } from './statCache'

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
 * paths; the snapshotter then only stats the files.
 */
export interface ReusableListing {
  /** The listed paths, sorted. */
  readonly paths: readonly string[]
  /** Stats the watched directories and ignore files: true when none changed. */
  stillValid(): boolean
}

/** Per directory: ino, mtimeMs, ctimeMs. */
const DIR_FIELDS = 3
/** Per ignore file: ino, size, mtimeMs, ctimeMs; ino -1 when absent. */
const FILE_FIELDS = 4

/**
 * Records what `paths` were listed from. `directories` are every directory the
 * listing descended into (root-relative, '' for the root), including those that
 * hold no listed file; the parents of listed paths are added here. `listedAt` is
 * Date.now() taken before the listing started.
 *
 * Racy case: a directory changed at a moment too close to the listing (within
 * RACY_MARGIN_MS of `listedAt`, or after it) may have changed after the listing
 * read it, with a timestamp a later change could repeat. Then the listing is not
 * kept: the next snapshot lists again. Returns undefined in that case, or when a
 * directory could not be stat'ed.
 */
export function recordListing(
  root: string,
  paths: readonly string[],
  directories: readonly string[],
  listedAt: number,
): ReusableListing | undefined {
  try {
    return record(root, paths, directories, listedAt)
  } catch {
    return undefined // e.g. ENOTDIR: a directory was replaced while we looked
  }
}

function record(
  root: string,
  paths: readonly string[],
  directories: readonly string[],
  listedAt: number,
): ReusableListing | undefined {
  const dirs = new Set(directories)
  dirs.add('')
  for (const p of paths) {
    for (let cut = p.lastIndexOf('/'); cut > 0; cut = p.lastIndexOf('/', cut - 1)) {
      const parent = p.slice(0, cut)
      if (dirs.has(parent)) break
      dirs.add(parent)
    }
  }
  const trustedBefore = listedAt - RACY_MARGIN_MS
  const dirPaths = [...dirs].map((d) => (d === '' ? root : `${root}/${d}`))
  const dirStats = new Float64Array(dirPaths.length * DIR_FIELDS)
  for (let i = 0; i < dirPaths.length; i++) {
    const st = fs.statSync(dirPaths[i], { throwIfNoEntry: false })
    if (!st?.isDirectory() || st.mtimeMs >= trustedBefore || st.ctimeMs >= trustedBefore) return undefined
    dirStats.set([st.ino, st.mtimeMs, st.ctimeMs], i * DIR_FIELDS)
  }
  const filePaths = dirPaths.flatMap((d) => IGNORE_FILE_NAMES.map((name) => `${d}/${name}`))
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

  return {
    paths,
    stillValid() {
      try {
        return unchanged()
      } catch {
        return false
      }
    },
  }

  function unchanged(): boolean {
    for (let i = 0, at = 0; i < dirPaths.length; i++, at += DIR_FIELDS) {
      const st = fs.statSync(dirPaths[i], { throwIfNoEntry: false })
      if (
        !st ||
        st.ino !== dirStats[at] ||
        st.mtimeMs !== dirStats[at + 1] ||
        st.ctimeMs !== dirStats[at + 2] ||
        !st.isDirectory()
      )
        return false
    }
    for (let i = 0, at = 0; i < filePaths.length; i++, at += FILE_FIELDS) {
      const st = fs.statSync(filePaths[i], { throwIfNoEntry: false })
      if (!st) {
        if (fileStats[at] !== -1) return false
        continue
      }
      if (
        st.ino !== fileStats[at] ||
        st.size !== fileStats[at + 1] ||
        st.mtimeMs !== fileStats[at + 2] ||
        st.ctimeMs !== fileStats[at + 3]
      )
        return false
    }
    return true
  }
}
