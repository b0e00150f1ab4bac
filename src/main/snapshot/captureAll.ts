import type { SnapshotTables } from '../store/snapshot-tables'
import type { SnapshotFile } from '../store/types'
import type { BlobStore } from './blobs'
import { skipReasonOf, statOf, type Capture, type ReadElsewhere } from './capture'
import { createThreadedReads, releaseReads, type FileRead } from './readThreads'
import type { FileStat, StatCache } from './statCache'
import { STAT_FIELDS, STAT_OK } from './statFiles'

/**
 * The full capture of a snapshot: every listed file, in slices. This thread works
 * out which files its stat cache cannot vouch for; helper threads read, hash and
 * compress those (readThreads.ts) while this thread stores the slice before (its
 * blobs and stat-cache rows), one transaction per slice, with the event loop free
 * in between. Without helpers this thread reads them itself.
 */

/** Files and bytes to read per slice: a slice is one message to the helpers and one transaction. */
const SLICE_FILES = 2000
const SLICE_BYTES = 16 * 1024 * 1024
/** Slices read ahead of the one being stored. */
const READ_AHEAD = 2
/** Fewer files and bytes than this in a slice: read here, a helper's start would cost more. */
const HELPER_MIN_FILES = 256
const HELPER_MIN_BYTES = 4 * 1024 * 1024

interface Slice {
  from: number
  to: number
  stats: Array<FileStat | string>
  /** Indexes (into `paths`) of the files to read, ascending. */
  toRead: number[]
  /** Undefined: this thread reads them (few, or no helpers). */
  reads: Promise<FileRead[] | undefined>
}

export async function captureAll(a: {
  tables: Pick<SnapshotTables, 'transaction'>
  root: string
  paths: readonly string[]
  /** STAT_FIELDS per path (statFiles); a status other than STAT_OK is stat'ed again here. */
  stats: Float64Array
  capture: Capture
  cache: StatCache
  blobs: BlobStore
  maxFileBytes: number
}): Promise<{ files: SnapshotFile[]; notStated: number }> {
  const { root, paths, stats, capture: c, cache, blobs } = a
  const reads = createThreadedReads(root)
  const files: SnapshotFile[] = []
  let notStated = 0

  const plan = (from: number): Slice => {
    const sts: Array<FileStat | string> = []
    const toRead: number[] = []
    let bytes = 0
    let i = from
    for (; i < paths.length && i - from < SLICE_FILES && bytes < SLICE_BYTES; i++) {
      const at = i * STAT_FIELDS
      let st: FileStat | string
      if (stats[at] === STAT_OK)
        st = { size: stats[at + 1], mtimeMs: stats[at + 2], ino: stats[at + 3], mode: stats[at + 4] }
      else {
        notStated++ // statFiles says: stat it again to learn why
        st = statOf(`${root}/${paths[i]}`)
      }
      sts.push(st)
      if (typeof st === 'string' || skipReasonOf(st, a.maxFileBytes)) continue
      if (cache.cleanHash(paths[i], st) !== undefined) continue
      toRead.push(i)
      bytes += st.size
    }
    const worth = toRead.length >= HELPER_MIN_FILES || bytes >= HELPER_MIN_BYTES
    const got = worth ? reads.read(toRead.map((k) => paths[k])) : Promise.resolve(undefined)
    return { from, to: i, stats: sts, toRead, reads: got }
  }

  const store = a.tables.transaction((s: Slice, got: FileRead[] | undefined) => {
    for (let i = s.from, r = 0; i < s.to; i++) {
      let read: ReadElsewhere | undefined
      if (got && s.toRead[r] === i) {
        const g = got[r++]
        if (g.error !== undefined) read = g
        else {
          // A DUPLICATE's bytes came earlier in this capture, and were stored then.
          if (g.data !== undefined) blobs.putEncoded(g.hash, g.size, g.encoding, g.data)
          read = { hash: g.hash, size: g.size }
        }
      }
      const f = c.file(paths[i], s.stats[i - s.from], read)
      if (f) files.push(f)
    }
    // The slice's stat-cache rows go with its blobs (the stat cache keeps its hashes' blobs
    // from a purge): written here, while the helpers read the next slices, instead of all
    // at once with the snapshot row after the last read (~0.5 s of a big first baseline).
    cache.flush()
  })

  const ahead: Slice[] = []
  let next = 0
  const fill = () => {
    while (ahead.length < READ_AHEAD && next < paths.length) {
      const s = plan(next)
      next = s.to
      ahead.push(s)
    }
  }
  try {
    fill()
    while (ahead.length > 0) {
      const s = ahead.shift()!
      const got = await s.reads
      store(s, got)
      if (got) releaseReads(got)
      cache.committed()
      fill()
      await new Promise((resolve) => setImmediate(resolve))
    }
  } finally {
    reads.done()
  }
  return { files, notStated }
}
