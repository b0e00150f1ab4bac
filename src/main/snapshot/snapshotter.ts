import fs from 'node:fs'
import type { SqliteDatabase } from '../store/sqlite'
import type { SnapshotFile, SnapshotInfo } from '../store/types'
import type { BaselineReader } from '../tools/types'
import { createBlobStore, sha256 } from './blobs'
import { recordListing, type ReusableListing } from './listingCache'
import { decodeManifest, diffManifests, encodeManifest, type SnapshotChanges } from './manifest'
import { loadStatCache, RACY_MARGIN_MS, type FileStat, type StatCache } from './statCache'
import { STAT_FIELDS, STAT_OK, statFiles } from './statFiles'

export { diffManifests, type SnapshotChanges } from './manifest'

export interface SnapshotterOptions {
  /** The project root, already realpath'd. */
  root: string
  /**
   * Every file a snapshot may capture, as root-relative POSIX paths. The caller
   * owns the policy: this must already leave out denied files (`.env`, keys,
   * `.git/`) and ignored ones — in the app it is the sandbox's ripgrep listing.
   * The snapshotter captures whatever it is given.
   */
  listFiles: () => Promise<string[]>
  /**
   * Optional, and what lets a snapshot of a tree whose shape has not changed skip
   * `listFiles` and only stat the files: every directory the listing descends into,
   * root-relative ('' for the root), including those holding no listed file (empty,
   * or all of whose files are ignored). In the app:
   * `() => listUnignoredDirectories(root, (rel) => sandbox.isIgnored(rel))`.
   * Without it every snapshot lists.
   */
  listDirectories?: () => Promise<string[]>
  /**
   * Optional, with `listDirectories`: true for a root-relative path `listFiles`
   * leaves out (ignored or denied). With it, a snapshot after some directories
   * changed (a restore just wrote into them) re-reads only those and judges new
   * names by it instead of listing everything again; it must agree with the
   * listing. In the app: `(rel) => sandbox.isIgnored(rel)`.
   */
  isIgnored?: (rel: string) => boolean
  /**
   * Date.now unless given. Decides which directories changed too recently to
   * trust (see recordListing); tests move it ahead so that fresh ones count as old.
   */
  now?: () => number
  /** Larger files are left out and reported in `skipped` (default 64 MB). */
  maxFileBytes?: number
}

export interface TakeSnapshotResult {
  info: SnapshotInfo
  /** Against the previous snapshot of the same root (everything is `added` for the first). */
  changed: SnapshotChanges
  /** Listed files that could not be captured: vanished, unreadable, not a regular file, too large. */
  skipped: Array<{ path: string; reason: string }>
}

export interface Snapshotter {
  readonly root: string
  takeSnapshot(opts: { sessionId: string | null; label?: string }): Promise<TakeSnapshotResult>
  getSnapshot(snapshotId: number): SnapshotInfo | undefined
  /** Snapshots of this root, oldest first; optionally only one session's. */
  listSnapshots(opts?: { sessionId?: string }): SnapshotInfo[]
  getManifest(snapshotId: number): SnapshotFile[]
  /** Raw bytes of a blob, verified against its hash; throws a clear error when missing or corrupt. */
  readBlob(hash: string): Buffer
  /** The file's bytes in that snapshot, or null when it was not in it. */
  readFileAt(snapshotId: number, path: string): Buffer | null
  /** What changed from one snapshot to another (paths sorted). */
  diffSnapshots(fromId: number, toId: number): SnapshotChanges
  baselineReader(snapshotId: number): BaselineReader
}

/** Files per synchronous slice; between slices the event loop gets a turn. */
const SLICE_FILES = 2000
const SLICE_BYTES = 32 * 1024 * 1024

type SnapshotRow = {
  id: number
  session_id: string | null
  root: string
  label: string | null
  created_at: number
  manifest_hash: string
  file_count: number
  total_bytes: number
}

interface LoadedManifest {
  files: SnapshotFile[]
  byPath: Map<string, SnapshotFile>
}

function toInfo(r: SnapshotRow): SnapshotInfo {
  return {
    id: r.id,
    sessionId: r.session_id,
    root: r.root,
    label: r.label,
    createdAt: r.created_at,
    fileCount: r.file_count,
    totalBytes: r.total_bytes,
    manifestHash: r.manifest_hash,
  }
}

function isSafeRelative(p: string): boolean {
  if (!p || p.startsWith('/') || p.includes('\0') || p.includes('\\')) return false
  return !p.includes('..') || !p.split('/').includes('..')
}

function sameNumbers(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

export function createSnapshotter(db: SqliteDatabase, opts: SnapshotterOptions): Snapshotter {
  const { root } = opts
  const maxFileBytes = opts.maxFileBytes ?? 64 * 1024 * 1024
  const blobs = createBlobStore(db)
  // A name the listing would drop (see listedPaths) counts as ignored when a directory is re-read.
  const ignored = opts.isIgnored
  const isIgnored = ignored && ((rel: string) => !isSafeRelative(rel) || ignored(rel))
  const selectSnapshot = db.prepare<[number], SnapshotRow>('SELECT * FROM snapshots WHERE id = ?')
  const selectLatest = db.prepare<[string], SnapshotRow>(
    'SELECT * FROM snapshots WHERE root = ? ORDER BY id DESC LIMIT 1',
  )
  const selectByRoot = db.prepare<[string], SnapshotRow>('SELECT * FROM snapshots WHERE root = ? ORDER BY id')
  const selectBySession = db.prepare<[string, string], SnapshotRow>(
    'SELECT * FROM snapshots WHERE root = ? AND session_id = ? ORDER BY id',
  )
  const insertSnapshot = db.prepare(
    `INSERT INTO snapshots (session_id, root, label, created_at, manifest_hash, file_count, total_bytes)
     VALUES (@sessionId, @root, @label, @createdAt, @manifestHash, @fileCount, @totalBytes)`,
  )

  let statCache: StatCache | undefined
  // The last listing, while the directories it came from are unchanged.
  let listing: ReusableListing | undefined
  // The last snapshot, when taking it again from the same listing and the same
  // stats is bound to give the same manifest: no file was skipped or racily
  // clean, so each has a clean stat-cache entry matching its stat.
  let reproducible: { paths: readonly string[]; stats: Float64Array; manifestHash: string } | undefined
  // Decoded manifests by hash; a few recent ones are enough (baseline + latest).
  const manifests = new Map<string, LoadedManifest>()
  let queue: Promise<unknown> = Promise.resolve()

  function loadManifest(hash: string): LoadedManifest {
    let m = manifests.get(hash)
    if (!m) {
      const files = decodeManifest(blobs.get(hash, 'a snapshot manifest'))
      m = { files, byPath: new Map(files.map((f) => [f.path, f])) }
    }
    return remember(hash, m)
  }

  function remember(hash: string, m: LoadedManifest): LoadedManifest {
    manifests.delete(hash) // re-inserted as the most recent
    manifests.set(hash, m)
    while (manifests.size > 4) manifests.delete(manifests.keys().next().value!)
    return m
  }

  function snapshotRow(snapshotId: number): SnapshotRow {
    const row = selectSnapshot.get(snapshotId)
    if (!row) throw new Error(`No snapshot with id ${snapshotId}.`)
    return row
  }

  function listedPaths(listed: string[]): string[] {
    const paths = listed.filter(isSafeRelative)
    let sorted = true
    for (let i = 1; i < paths.length && sorted; i++) sorted = paths[i - 1] < paths[i]
    return sorted ? paths : [...new Set(paths)].sort()
  }

  function insertRow(r: Omit<SnapshotInfo, 'id' | 'root' | 'label'> & { label?: string }): SnapshotInfo {
    const row = { ...r, root, label: r.label ?? null }
    return { id: Number(insertSnapshot.run(row).lastInsertRowid), ...row }
  }

  /** The files to capture: the last listing when it still holds, else a new one. */
  async function currentPaths(): Promise<readonly string[]> {
    const now = opts.now ?? Date.now
    const kept = listing?.refresh(now())
    if (kept) return kept
    listing = undefined
    const listedAt = now()
    const [listed, directories] = await Promise.all([opts.listFiles(), opts.listDirectories?.()])
    const paths = listedPaths(listed)
    if (directories) listing = recordListing(root, paths, directories, listedAt, isIgnored)
    return paths
  }

  async function take(sessionId: string | null, label: string | undefined): Promise<TakeSnapshotResult> {
    const startedAt = Date.now()
    const paths = await currentPaths()
    const stats = await statFiles(root, paths)
    // The stat statFiles took, or why there is none (asking again, as it says to).
    const statAt = (i: number, path: string): FileStat | string => {
      const at = i * STAT_FIELDS
      if (stats[at] === STAT_OK)
        return { size: stats[at + 1], mtimeMs: stats[at + 2], ino: stats[at + 3], mode: stats[at + 4] }
      try {
        return fs.statSync(`${root}/${path}`, { throwIfNoEntry: false }) ?? 'vanished'
      } catch (err) {
        return (err as NodeJS.ErrnoException).code ?? 'stat failed'
      }
    }
    const previous = selectLatest.get(root)
    const last = reproducible
    reproducible = undefined
    if (
      last &&
      previous &&
      last.paths === paths &&
      last.manifestHash === previous.manifest_hash &&
      sameNumbers(last.stats, stats)
    ) {
      // An unchanged tree: what the full capture below would conclude, without the per-file work.
      reproducible = last
      const info = insertRow({
        sessionId,
        label,
        createdAt: startedAt,
        manifestHash: previous.manifest_hash,
        fileCount: previous.file_count,
        totalBytes: previous.total_bytes,
      })
      return { info, changed: { added: [], modified: [], deleted: [] }, skipped: [] }
    }
    const cache = (statCache ??= loadStatCache(db, root))
    const prev = previous ? loadManifest(previous.manifest_hash).byPath : new Map<string, SnapshotFile>()
    const files: SnapshotFile[] = []
    const skipped: TakeSnapshotResult['skipped'] = []
    let totalBytes = 0
    let sameAsPrevious = 0
    let cachedPaths = 0
    let notReproducible = 0

    // One file: reuse the cached hash when the stat proves it unchanged, else read,
    // hash and (if new) store it. Runs inside a slice's transaction.
    const captureFile = (i: number): number => {
      const path = paths[i]
      const st = statAt(i, path)
      if (stats[i * STAT_FIELDS] !== STAT_OK) notReproducible++
      if (typeof st === 'string') return (skipped.push({ path, reason: st }), 0)
      if ((st.mode & fs.constants.S_IFMT) !== fs.constants.S_IFREG)
        return (skipped.push({ path, reason: 'not a regular file' }), 0)
      if (st.size > maxFileBytes)
        return (skipped.push({ path, reason: `larger than ${maxFileBytes} bytes` }), 0)
      if (cache.get(path)) cachedPaths++
      let hash = cache.cleanHash(path, st)
      let size = st.size
      if (hash === undefined) {
        let raw: Buffer
        try {
          raw = fs.readFileSync(`${root}/${path}`)
        } catch (err) {
          skipped.push({ path, reason: (err as NodeJS.ErrnoException).code ?? 'read failed' })
          return 0
        }
        hash = sha256(raw)
        size = raw.length
        blobs.put(hash, raw)
        if (raw.length !== st.size || st.mtimeMs >= startedAt - RACY_MARGIN_MS) notReproducible++
        // A file that changed between stat and read is not cached: the next snapshot reads it again.
        if (raw.length === st.size) {
          cache.set(path, {
            size,
            mtimeMs: st.mtimeMs,
            ino: st.ino,
            mode: st.mode,
            hash,
            checkedAt: startedAt,
          })
        }
      }
      const old = prev.get(path)
      if (
        old &&
        old.hash === hash &&
        old.size === size &&
        old.mode === st.mode &&
        old.mtimeMs === st.mtimeMs
      ) {
        files.push(old)
        sameAsPrevious++
      } else {
        files.push({ path, hash, size, mode: st.mode, mtimeMs: st.mtimeMs })
      }
      totalBytes += size
      return size
    }

    const captureSlice = db.transaction((from: number): number => {
      let i = from
      let bytes = 0
      while (i < paths.length && i - from < SLICE_FILES && bytes < SLICE_BYTES) bytes += captureFile(i++)
      return i
    })
    for (let i = 0; i < paths.length;) {
      i = captureSlice(i)
      if (i < paths.length) await new Promise((resolve) => setImmediate(resolve))
    }
    if (cachedPaths !== cache.size) cache.retain(new Set(files.map((f) => f.path)))

    // An unchanged tree reproduces the previous manifest exactly: skip encoding it.
    const unchanged = previous !== undefined && sameAsPrevious === files.length && files.length === prev.size
    const manifestBytes = unchanged ? undefined : encodeManifest(files)
    const manifestHash = manifestBytes ? sha256(manifestBytes) : previous!.manifest_hash
    const info = db.transaction((): SnapshotInfo => {
      if (manifestBytes) blobs.put(manifestHash, manifestBytes)
      cache.flush()
      return insertRow({
        sessionId,
        label,
        createdAt: startedAt,
        manifestHash,
        fileCount: files.length,
        totalBytes,
      })
    })()
    cache.committed()
    if (skipped.length === 0 && notReproducible === 0) reproducible = { paths, stats, manifestHash }

    let changed: SnapshotChanges
    if (!previous) changed = { added: files.map((f) => f.path), modified: [], deleted: [] }
    else if (previous.manifest_hash === manifestHash) changed = { added: [], modified: [], deleted: [] }
    else changed = diffManifests(prev, files)
    if (manifestBytes) remember(manifestHash, { files, byPath: new Map(files.map((f) => [f.path, f])) })
    return { info, changed, skipped }
  }

  const snapshotter: Snapshotter = {
    root,

    takeSnapshot({ sessionId, label }) {
      // Serialised: two overlapping snapshots would race on the stat cache.
      const run = queue.then(() => take(sessionId, label))
      queue = run.catch(() => undefined)
      return run
    },

    getSnapshot(snapshotId) {
      const row = selectSnapshot.get(snapshotId)
      return row && toInfo(row)
    },

    listSnapshots(o = {}) {
      const rows = o.sessionId === undefined ? selectByRoot.all(root) : selectBySession.all(root, o.sessionId)
      return rows.map(toInfo)
    },

    getManifest(snapshotId) {
      return loadManifest(snapshotRow(snapshotId).manifest_hash).files.slice()
    },

    readBlob(hash) {
      return blobs.get(hash)
    },

    readFileAt(snapshotId, path) {
      const entry = loadManifest(snapshotRow(snapshotId).manifest_hash).byPath.get(path)
      return entry ? blobs.get(entry.hash, path) : null
    },

    diffSnapshots(fromId, toId) {
      const from = loadManifest(snapshotRow(fromId).manifest_hash).byPath
      return diffManifests(from, loadManifest(snapshotRow(toId).manifest_hash).files)
    },

    baselineReader(snapshotId) {
      const row = snapshotRow(snapshotId)
      let files: Map<string, { hash: string; size: number }> | undefined
      return {
        info: () => ({
          snapshotId: row.id,
          createdAt: row.created_at,
          fileCount: row.file_count,
          totalBytes: row.total_bytes,
        }),
        files() {
          files ??= new Map(
            loadManifest(row.manifest_hash).files.map((f) => [f.path, { hash: f.hash, size: f.size }]),
          )
          return new Map(files)
        },
        readOriginal: (path) => snapshotter.readFileAt(row.id, path),
      }
    },
  }
  return snapshotter
}
