import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { errnoCode, errorMessage } from '../../shared/errors'
import type { KnownFile } from '../store/code-index-tables'
import { secretContentKind, SECRET_HEAD_BYTES } from '../containment/secret-content'
import { EXTRACTOR_VERSION, MAX_PARSE_BYTES, analyzeFile, oversized } from './analyze'

/*
 * One file from disk to what the index stores, run in a worker thread or in
 * process. Keyed by content: a file whose size and mtime match what is stored is
 * not read; one whose bytes hash the same is not parsed. A file over the parse
 * limit is never read (its stat says enough), and no read goes past the limit,
 * so a 1.5 GB file — sparse, or growing while it is read — costs no memory.
 */

export interface FileJob {
  rel: string
  abs: string
  known?: KnownFile
  /** Read and hash even when size and mtime match (a watcher event says it changed). */
  force?: boolean
}

export type FileOutcome =
  | { rel: string; status: 'unchanged' }
  /** Same bytes, new mtime: only the stat is updated. */
  | { rel: string; status: 'touched'; size: number; mtimeMs: number }
  | {
      rel: string
      status: 'parsed'
      size: number
      mtimeMs: number
      hash: string
      /** FileFacts as JSON: serialised where it was made, stored as is. */
      facts: string
      idents: string
    }
  /** Deleted (or replaced by a directory) between listing and reading. */
  | { rel: string; status: 'gone' }
  | { rel: string; status: 'error'; error: string }

export function contentHash(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex')
}

export async function processFile(job: FileJob): Promise<FileOutcome> {
  const { rel, abs, known } = job
  let stat: fs.Stats
  let data: Buffer
  let fd: number | undefined
  try {
    // Through the gate's rules at the moment of use: a file swapped for a link (to outside the
    // project, or to a secret) since it was listed is not followed (O_NOFOLLOW gives ELOOP),
    // and a FIFO never blocks the open.
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (fs.constants.O_NOFOLLOW ?? 0))
    stat = fs.fstatSync(fd)
    if (!stat.isFile()) return { rel, status: 'gone' }
    if (
      known &&
      !job.force &&
      known.version === EXTRACTOR_VERSION &&
      known.size === stat.size &&
      known.mtimeMs === stat.mtimeMs
    )
      return { rel, status: 'unchanged' }
    if (stat.size > MAX_PARSE_BYTES) return oversizedOutcome(rel, stat)
    data = readAtMost(fd, MAX_PARSE_BYTES + 1, stat.size)
    if (data.length > MAX_PARSE_BYTES) return oversizedOutcome(rel, stat)
  } catch (err) {
    const code = errnoCode(err)
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP')
      return { rel, status: 'gone' }
    return { rel, status: 'error', error: `could not read: ${errorMessage(err)}` }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
  // A secret by content (a PEM key named notes.ts) is not indexed: its names would be shown.
  if (secretContentKind(data.subarray(0, SECRET_HEAD_BYTES))) return { rel, status: 'gone' }
  const hash = contentHash(data)
  if (known && known.hash === hash && known.version === EXTRACTOR_VERSION)
    return { rel, status: 'touched', size: data.length, mtimeMs: stat.mtimeMs }
  try {
    const { facts, idents } = await analyzeFile(rel, data)
    return {
      rel,
      status: 'parsed',
      size: data.length,
      mtimeMs: stat.mtimeMs,
      hash,
      facts: JSON.stringify(facts),
      idents,
    }
  } catch (err) {
    // A bug in an extractor must not stop the index: the file is reported and skipped.
    return { rel, status: 'error', error: `could not analyse: ${errorMessage(err)}` }
  }
}

/**
 * At most `limit` bytes from the start of the open file `fd` (it may have grown since its stat
 * said `size`).
 */
function readAtMost(fd: number, limit: number, size: number): Buffer {
  const chunks: Buffer[] = []
  let total = 0
  while (total < limit) {
    // The whole file in one read when its stat is right, and one more byte to see growth.
    const chunk = Buffer.allocUnsafe(Math.min(total === 0 ? size + 1 : 64 * 1024, limit - total))
    const n = fs.readSync(fd, chunk, 0, chunk.length, total)
    if (n === 0) break
    chunks.push(chunk.subarray(0, n))
    total += n
  }
  return Buffer.concat(chunks, total)
}

/** Stored by size and mtime: the hash names those, since the bytes are never read. */
function oversizedOutcome(rel: string, stat: fs.Stats): FileOutcome {
  const { facts, idents } = oversized(rel, stat.size)
  const hash = createHash('sha256').update(`oversized:${stat.size}:${stat.mtimeMs}`).digest('hex')
  return {
    rel,
    status: 'parsed',
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    hash,
    facts: JSON.stringify(facts),
    idents,
  }
}
