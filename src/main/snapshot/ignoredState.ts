import path from 'node:path'
import { z } from 'zod'
import { isStringArray } from '../../shared/records'
import { readFlatFile, writeFlatFile } from '../store/flatFile'
import { stateFileFor } from './savedState'
import { RACY_MARGIN_MS } from './statCache'

/*
 * The ignored-folder record's folders (ignoredFolders.ts), kept for the next process: its first
 * command then reads again only the folders whose mtime or ctime moved since, instead of walking
 * the whole tree (3,720 folders read on the 85,000-file bench tree, ~0.3 s of a first command).
 *
 * The trust is the listing's (listingCache.ts): creating, removing or renaming an entry changes
 * its folder's mtime and ctime, so a folder whose stat is what was saved holds the same names. A
 * folder that changed too close to the record (within RACY_MARGIN_MS of its start, or after it) is
 * saved untrusted and read again. Which folders the rules ignore is not trusted: the record asks
 * the rules again (an ignore file edited in place moves no folder). The file sits in the data
 * folder, which sandboxed commands cannot see. Only a cache: one that is missing, garbled, of
 * another version or for another root is ignored, and it is replaced whole by a rename.
 */

/** One folder as the record read it. */
export interface RecordedFolder {
  /** Inside an ignored folder (or one itself): its files are recorded. */
  ignored: boolean
  subdirs: string[]
  files: string[]
  /** mtime and ctime when it was read; NaN when they vouch for nothing (it is read again). */
  mtime: number
  ctime: number
}

const VERSION = 1

/** One folder as saved: [folder, ignored, mtime (null: untrusted), ctime, subfolders, files]. */
type Row = [string, boolean, number | null, number | null, string[], string[]]

const headerSchema = z.object({ version: z.literal(VERSION), root: z.string() })

/** Where the record of `root` is kept in a store's data folder, for a sandbox denying `denyPatterns`. */
export function ignoredStateFileIn(dataDir: string, root: string, denyPatterns: readonly string[]): string {
  return stateFileFor(path.join(dataDir, 'ignored-state'), root, denyPatterns.join('\0'))
}

/**
 * The folders an earlier process saved for `root` (the root's own included); undefined when there
 * is nothing to trust.
 */
export function loadFolders(file: string, root: string): Map<string, RecordedFolder> | undefined {
  const read = readFlatFile(file, headerSchema)
  if (!read || read.header.root !== root) return undefined
  let rows: unknown
  try {
    rows = JSON.parse(read.data.subarray(read.at).toString('utf8'))
  } catch {
    return undefined
  }
  if (!Array.isArray(rows)) return undefined
  const folders = new Map<string, RecordedFolder>()
  for (const row of rows) {
    if (!isRow(row)) return undefined
    const [dir, ignored, mtime, ctime, subdirs, files] = row
    folders.set(dir, { ignored, subdirs, files, mtime: mtime ?? NaN, ctime: ctime ?? NaN })
  }
  return folders.has('') ? folders : undefined
}

/**
 * Checked by hand, not by a schema: a session's first command waits for it, and zod's check of the
 * bench tree's 3,720 rows took 27–43 ms in a new process against 5–7 ms for this.
 */
function isRow(row: unknown): row is Row {
  if (!Array.isArray(row) || row.length !== 6) return false
  const [dir, ignored, mtime, ctime, subdirs, files] = row as unknown[]
  return (
    typeof dir === 'string' &&
    typeof ignored === 'boolean' &&
    (mtime === null || typeof mtime === 'number') &&
    (ctime === null || typeof ctime === 'number') &&
    isStringArray(subdirs) &&
    isStringArray(files)
  )
}

/**
 * Saves `folders` for the next process. `lookedAt` is Date.now() taken before the record read or
 * stat'ed anything: a folder changed since (or just before) is saved untrusted.
 */
export function saveFolders(
  file: string,
  root: string,
  folders: ReadonlyMap<string, RecordedFolder>,
  lookedAt: number,
): void {
  const trustedBefore = lookedAt - RACY_MARGIN_MS
  const rows: Row[] = []
  for (const [dir, f] of folders) {
    const trusted = f.mtime >= 0 && f.mtime < trustedBefore && f.ctime < trustedBefore
    rows.push([dir, f.ignored, trusted ? f.mtime : null, trusted ? f.ctime : null, f.subdirs, f.files])
  }
  try {
    writeFlatFile(file, { version: VERSION, root }, [Buffer.from(JSON.stringify(rows), 'utf8')])
  } catch {
    // Only a cache: the next process walks the tree as if there were none.
  }
}
