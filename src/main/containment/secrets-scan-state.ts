import { createHash } from 'node:crypto'
import path from 'node:path'
import { z } from 'zod'
import { isRecord, isStringArray } from '../../shared/records'
import { readFlatFile, writeFlatFile } from '../store/flatFile'

/*
 * The secrets walk's per-folder results (project-secrets.ts), kept in a file beside
 * the store so that a new process's first command re-reads only folders whose
 * mtime changed since, as later commands in one process do. On a 72,000-file tree
 * the walk reads ~2,700 folders and lstats every file (for hard links): ~0.6 s of
 * the session's thread before its first command; with this file, ~2,700 folder stats.
 *
 * The trust is the walk's own: a folder whose mtime is what it was holds the same
 * names. The file sits in the data folder, which sandboxed commands cannot see
 * (hideFromCommands), so a command cannot edit it to unmask a secret. Only a
 * cache: a file that is missing, garbled, of another version or for another root
 * is ignored, and it is replaced whole by a rename (flatFile.ts).
 */

/** What one folder held at its mtime, as the walk read it (project-secrets.ts). */
export interface DirEntry {
  mtimeMs: number
  secrets: string[]
  gits: string[]
  hardLinks: string[]
  subdirs: string[]
  entries: number
}

/**
 * Checked by hand, not by a schema: a session's first command waits for it, and zod's check of the
 * bench tree's 3,569 folders took 27–49 ms in a new process against 6–10 ms for this.
 */
function isDirRow(row: unknown): row is [string, DirEntry] {
  if (!Array.isArray(row) || row.length !== 2 || typeof row[0] !== 'string') return false
  const entry: unknown = row[1]
  return (
    isRecord(entry) &&
    typeof entry.mtimeMs === 'number' &&
    typeof entry.entries === 'number' &&
    isStringArray(entry.secrets) &&
    isStringArray(entry.gits) &&
    isStringArray(entry.hardLinks) &&
    isStringArray(entry.subdirs)
  )
}

const VERSION = 1

let stateDir: string | undefined

/** Keeps the walk's results under `dataDir` (the store's folder) from now on in this process. */
export function keepSecretsScansIn(dataDir: string | undefined): void {
  stateDir = dataDir && path.join(dataDir, 'secrets-scan')
}

function fileFor(root: string, kind = ''): string | undefined {
  if (!stateDir) return undefined
  return path.join(stateDir, `${kind}${createHash('sha256').update(root).digest('hex').slice(0, 32)}.json`)
}

/*
 * The history check's verdict per repository (sandboxing/git-history.ts), kept beside the walk's results
 * for the same reason: `git rev-list --objects --all` of a 70,000-file repository takes ~0.5 s,
 * paid again by every process's first command while refs, reflogs and the index are unchanged.
 * Trusted only under the same fingerprint of those files, as the process's own memory is.
 */
export function loadHistoryVerdict<T>(
  gitPath: string,
  fingerprint: string,
  verdict: z.ZodType<T>,
): { hidden: T } | undefined {
  const file = fileFor(gitPath, 'history-')
  const saved = file ? readFlatFile(file, z.unknown())?.header : undefined
  const parsed = z
    .object({
      version: z.literal(VERSION),
      gitPath: z.literal(gitPath),
      fingerprint: z.literal(fingerprint),
      hidden: verdict,
    })
    .safeParse(saved)
  return parsed.success ? { hidden: parsed.data.hidden } : undefined
}

export function saveHistoryVerdict(gitPath: string, fingerprint: string, hidden: unknown): void {
  const file = fileFor(gitPath, 'history-')
  if (!file) return
  try {
    writeFlatFile(file, { version: VERSION, gitPath, fingerprint, hidden }, [])
  } catch {
    // Only a cache: the next process checks the history again.
  }
}

/**
 * What an earlier process saved for `root`; undefined when there is nothing to trust. Parsed once
 * per process (a few thousand folders: milliseconds).
 */
export function loadScans(root: string): Map<string, DirEntry> | undefined {
  const file = fileFor(root)
  const saved = file ? readFlatFile(file, z.unknown())?.header : undefined
  const parsed = z
    .object({ version: z.literal(VERSION), root: z.literal(root), dirs: z.unknown() })
    .safeParse(saved)
  const dirs = parsed.success ? parsed.data.dirs : undefined
  return Array.isArray(dirs) && dirs.every(isDirRow) ? new Map(dirs) : undefined
}

/** Saves `scans` for the next process (a flat file of a header alone: flatFile.ts). */
export function saveScans(root: string, scans: ReadonlyMap<string, DirEntry>): void {
  const file = fileFor(root)
  if (!file) return
  try {
    writeFlatFile(file, { version: VERSION, root, dirs: [...scans] }, [])
  } catch {
    // Only a cache: the next process walks as if there were none.
  }
}
