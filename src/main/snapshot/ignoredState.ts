import path from 'node:path'
import { z } from 'zod'
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

/** [folder, ignored, mtime (null: untrusted), ctime, subfolders, files] */
const rowSchema = z.tuple([
  z.string(),
  z.boolean(),
  z.number().nullable(),
  z.number().nullable(),
  z.array(z.string()),
  z.array(z.string()),
])

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
    const parsed = rowSchema.safeParse(row)
    if (!parsed.success) return undefined
    const [dir, ignored, mtime, ctime, subdirs, files] = parsed.data
    folders.set(dir, { ignored, subdirs, files, mtime: mtime ?? NaN, ctime: ctime ?? NaN })
  }
  return folders.has('') ? folders : undefined
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
  const rows: z.infer<typeof rowSchema>[] = []
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
