import type { SnapshotFile } from '../store/types'
import { byPath } from './sortedPaths'

/**
 * A manifest is stored as a blob like any file, so an unchanged tree yields the
 * same bytes, the same hash and no new row. Two kinds, both sorted by path, each
 * record terminated by NUL (the one byte a path cannot hold):
 *
 * - full: a header line `stepwise-manifest 1`, then one record per file,
 *   `<hash> <size> <mode octal> <mtimeMs> <path>\0`.
 * - delta: a header line `stepwise-manifest-delta 1 <base manifest hash>`, then
 *   only what differs from the base: a file record as above for each file added
 *   or changed (content, mode or mtime), `- <path>\0` for each file removed.
 *
 * A checkpoint of a big tree after a command that touched ten files stores ten
 * records instead of the whole tree (and spends no time encoding it); the
 * snapshotter bounds the chain of deltas (see MAX_DELTA_DEPTH) so reading an old
 * manifest stays cheap.
 */
const HEADER = 'stepwise-manifest 1\n'
const DELTA_HEADER = 'stepwise-manifest-delta 1 '
const HASH = /^[0-9a-f]{64}$/

/** A delta on top of `depth` - 1 others; the snapshotter writes a full manifest beyond this. */
export const MAX_DELTA_DEPTH = 32

export type DecodedManifest =
  | { kind: 'full'; files: SnapshotFile[] }
  | { kind: 'delta'; base: string; set: SnapshotFile[]; removed: string[] }

const record = (f: SnapshotFile) => `${f.hash} ${f.size} ${f.mode.toString(8)} ${f.mtimeMs} ${f.path}\0`

export function encodeManifest(files: readonly SnapshotFile[]): Buffer {
  const out = new RecordWriter(HEADER.length + files.length * RECORD_BYTES_GUESS)
  out.write(HEADER)
  for (const f of files) out.write(record(f))
  return out.bytes()
}

/** `set` and `removed` must each be sorted by path, and disjoint. */
export function encodeManifestDelta(
  base: string,
  set: readonly SnapshotFile[],
  removed: readonly string[],
): Buffer {
  const out = new RecordWriter((set.length + removed.length) * RECORD_BYTES_GUESS)
  out.write(`${DELTA_HEADER}${base}\n`)
  let j = 0
  for (const f of set) {
    while (j < removed.length && removed[j] < f.path) out.write(`- ${removed[j++]}\0`)
    out.write(record(f))
  }
  while (j < removed.length) out.write(`- ${removed[j++]}\0`)
  return out.bytes()
}

/** A record's usual size (a hash, three numbers, a path): the writer's first guess, grown when short. */
const RECORD_BYTES_GUESS = 160

/**
 * Records written one by one into a buffer that grows as needed. Joining them into one string
 * first made a big tree's manifest (72,000 files, 11 MB) three times over on the heap — the
 * records kept for the join, the joined text, then its bytes — at the first baseline's end, where
 * the session's memory peaked.
 */
class RecordWriter {
  private buf: Buffer
  private length = 0
  constructor(guess: number) {
    this.buf = Buffer.allocUnsafe(Math.max(guess, 1024))
  }
  write(text: string): void {
    // A UTF-16 unit never takes more than 3 bytes of UTF-8.
    const room = text.length * 3
    if (this.length + room > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + room))
      this.buf.copy(bigger, 0, 0, this.length)
      this.buf = bigger
    }
    this.length += this.buf.write(text, this.length, 'utf8')
  }
  bytes(): Buffer {
    return this.buf.subarray(0, this.length)
  }
}

export function decodeManifest(data: Buffer): DecodedManifest {
  const text = data.toString('utf8')
  if (text.startsWith(HEADER)) return { kind: 'full', files: records(text, HEADER.length).set }
  if (text.startsWith(DELTA_HEADER)) {
    const eol = text.indexOf('\n')
    const base = text.slice(DELTA_HEADER.length, eol)
    if (eol < 0 || !HASH.test(base)) throw new Error('Malformed snapshot manifest delta header.')
    return { kind: 'delta', base, ...records(text, eol + 1) }
  }
  throw new Error('Not a Stepwise snapshot manifest (unknown header).')
}

/** Whether a stored manifest is a delta (from its header alone). */
export function isManifestDelta(data: Buffer): boolean {
  return data.subarray(0, DELTA_HEADER.length).toString('utf8') === DELTA_HEADER
}

/** The files of a full manifest; throws for a delta (which needs its base). */
export function decodeFullManifest(data: Buffer): SnapshotFile[] {
  const m = decodeManifest(data)
  if (m.kind !== 'full') throw new Error('A snapshot manifest delta where a full manifest was expected.')
  return m.files
}

function records(text: string, at: number): { set: SnapshotFile[]; removed: string[] } {
  const set: SnapshotFile[] = []
  const removed: string[] = []
  while (at < text.length) {
    const end = text.indexOf('\0', at)
    if (end < 0) throw new Error('Truncated snapshot manifest.')
    if (text.startsWith('- ', at)) {
      removed.push(text.slice(at + 2, end))
      at = end + 1
      continue
    }
    const s1 = text.indexOf(' ', at)
    const s2 = text.indexOf(' ', s1 + 1)
    const s3 = text.indexOf(' ', s2 + 1)
    const s4 = text.indexOf(' ', s3 + 1)
    set.push({
      hash: text.slice(at, s1),
      size: Number(text.slice(s1 + 1, s2)),
      mode: parseInt(text.slice(s2 + 1, s3), 8),
      mtimeMs: Number(text.slice(s3 + 1, s4)),
      path: text.slice(s4 + 1, end),
    })
    at = end + 1
  }
  return { set, removed }
}

/**
 * The base's files with the deltas applied, oldest delta first: one pass over the
 * base whatever the number of deltas (the newest record for a path wins).
 */
export function applyManifestDeltas(
  base: readonly SnapshotFile[],
  deltas: ReadonlyArray<{ set: readonly SnapshotFile[]; removed: readonly string[] }>,
): SnapshotFile[] {
  const overlay = new Map<string, SnapshotFile | null>()
  for (const d of deltas) {
    for (const p of d.removed) overlay.set(p, null)
    for (const f of d.set) overlay.set(f.path, f)
  }
  if (overlay.size === 0) return base.slice()
  const added = [...overlay.values()].filter((f): f is SnapshotFile => f !== null)
  added.sort(byPath)
  const out: SnapshotFile[] = []
  let j = 0
  for (const f of base) {
    while (j < added.length && added[j].path < f.path) out.push(added[j++])
    if (j < added.length && added[j].path === f.path)
      out.push(added[j++]) // replaced
    else if (!overlay.has(f.path)) out.push(f) // kept (else removed)
  }
  while (j < added.length) out.push(added[j++])
  return out
}

export interface SnapshotChanges {
  added: string[]
  modified: string[]
  deleted: string[]
}

/** What changed from `before` to `after` (each list sorted, as `after` is). */
export function diffManifests(
  before: ReadonlyMap<string, SnapshotFile>,
  after: readonly SnapshotFile[],
): SnapshotChanges {
  const changed: SnapshotChanges = { added: [], modified: [], deleted: [] }
  const seen = new Set<string>()
  for (const f of after) {
    seen.add(f.path)
    const old = before.get(f.path)
    if (!old) changed.added.push(f.path)
    else if (old.hash !== f.hash || old.mode !== f.mode) changed.modified.push(f.path)
  }
  for (const path of before.keys()) if (!seen.has(path)) changed.deleted.push(path)
  changed.deleted.sort()
  return changed
}
