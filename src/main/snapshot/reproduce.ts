import fs from 'node:fs'
import { sha256 } from './blobs'
import { skipReasonOf } from './capture'
import { RACY_MARGIN_MS, type FileStat } from './statCache'
import { STAT_FIELDS, STAT_OK } from './statFiles'

/**
 * What lets a snapshot of a tree skip the per-file work: the stats every listed
 * file had when a snapshot with `manifestHash` was taken. A file whose stat is
 * the same is the file that snapshot captured — except a file read while racily
 * clean (its mtime too close to the read to rule out a later write within the
 * same tick). Those are `untrusted`: kept with the hash the manifest has for
 * them, and vouched for by their content (read and hashed again) until a later
 * check finds their mtime old enough. So a session that changed a few files
 * leaves a state the next one checks with a stat per file and a read of those few,
 * as git re-reads its racily clean entries.
 */
export interface Reproducible {
  /** Sorted; the same array as the listing it came from. */
  paths: readonly string[]
  /** STAT_FIELDS per path, every status STAT_OK. */
  stats: Float64Array
  manifestHash: string
  /** Index in `paths` → the manifest's hash for that file. */
  untrusted: ReadonlyMap<number, string>
}

function contentHash(abs: string): string | undefined {
  try {
    return sha256(fs.readFileSync(abs))
  } catch {
    return undefined
  }
}

/**
 * Checks `stats` (just taken, for `paths`: the listing now, sorted) against
 * `last`: the listed paths that may differ from its manifest (new names
 * included; names gone are for the caller to find), and the untrusted entries,
 * by index in `paths`, still untrusted (their content matched, but their mtime is
 * still too recent).
 */
export function verify(
  last: Reproducible,
  { paths, stats }: Pick<Reproducible, 'paths' | 'stats'>,
  root: string,
  startedAt: number,
): { changed: string[]; untrusted: Map<number, string> } {
  const changed: string[] = []
  const untrusted = new Map<number, string>()
  const old = last.stats
  const same = paths === last.paths
  // Still true of its content, and still too recent for its stat alone: kept untrusted.
  const checkContent = (i: number, hash: string) => {
    if (contentHash(`${root}/${paths[i]}`) !== hash) changed.push(paths[i])
    else if (stats[i * STAT_FIELDS + 2] >= startedAt - RACY_MARGIN_MS) untrusted.set(i, hash)
  }
  if (same && allStatted(stats) && sameBytes(stats, old)) {
    // Every stat as it was (an unchanged tree): only the untrusted entries are read, in order.
    for (const i of [...last.untrusted.keys()].sort((a, b) => a - b)) checkContent(i, last.untrusted.get(i)!)
    return { changed, untrusted }
  }
  for (let i = 0, j = 0, o = 0; i < paths.length; i++, o += STAT_FIELDS) {
    if (!same) {
      // Both sorted: walk `last` up to this path.
      while (j < last.paths.length && last.paths[j] < paths[i]) j++
      if (last.paths[j] !== paths[i]) {
        changed.push(paths[i])
        continue
      }
    } else j = i
    const q = j * STAT_FIELDS
    if (
      stats[o] !== STAT_OK ||
      stats[o + 1] !== old[q + 1] ||
      stats[o + 2] !== old[q + 2] ||
      stats[o + 3] !== old[q + 3] ||
      stats[o + 4] !== old[q + 4]
    ) {
      changed.push(paths[i])
      continue
    }
    const hash = last.untrusted.get(j)
    if (hash !== undefined) checkContent(i, hash)
  }
  return { changed, untrusted }
}

/** Every status STAT_OK: each path was stat'ed. */
function allStatted(stats: Float64Array): boolean {
  for (let o = 0; o < stats.length; o += STAT_FIELDS) if (stats[o] !== STAT_OK) return false
  return true
}

/**
 * The same numbers in both: one compare of their bytes instead of five per file in a loop that
 * runs once per process, before it is optimised (~6 ms for 85,000 files at a session's start).
 * Stats are never NaN, so equal bytes are equal numbers.
 */
function sameBytes(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false
  const bytes = (f: Float64Array) => Buffer.from(f.buffer, f.byteOffset, f.byteLength)
  return bytes(a).equals(bytes(b))
}

/**
 * The stats of `paths` after a capture of only some of them: `captured` files
 * (with the stat they were captured at) become untrusted entries, the others keep
 * what `base` had. Undefined when a listed path is neither (no stat vouches for it).
 */
export function withCaptured(
  base: Omit<Reproducible, 'manifestHash'>,
  paths: readonly string[],
  captured: ReadonlyMap<string, { st: FileStat; hash: string }>,
  manifestHash: string,
): Reproducible | undefined {
  const stats = new Float64Array(paths.length * STAT_FIELDS)
  const untrusted = new Map<number, string>()
  for (let i = 0, j = 0; i < paths.length; i++) {
    const p = paths[i]
    const o = i * STAT_FIELDS
    const got = captured.get(p)
    if (got) {
      stats.set([STAT_OK, got.st.size, got.st.mtimeMs, got.st.ino, got.st.mode], o)
      untrusted.set(i, got.hash)
      continue
    }
    // Both sorted: walk `base` up to `p`.
    while (j < base.paths.length && base.paths[j] < p) j++
    if (base.paths[j] !== p) return undefined
    stats.set(base.stats.subarray(j * STAT_FIELDS, (j + 1) * STAT_FIELDS), o)
    const hash = base.untrusted.get(j)
    if (hash !== undefined) untrusted.set(i, hash)
  }
  return { paths, stats, manifestHash, untrusted }
}

/**
 * The files a capture with these stats leaves out (STAT_OK stats, as `verify`
 * passes them): what the capture that `Reproducible` vouches for skipped, told
 * again without capturing.
 */
export function skippedByStat(
  paths: readonly string[],
  stats: Float64Array,
  maxFileBytes: number,
): Array<{ path: string; reason: string }> {
  const out: Array<{ path: string; reason: string }> = []
  // Read once: a property lookup per file costs more than the test in a loop not yet optimised.
  const { S_IFMT, S_IFREG } = fs.constants
  for (let i = 0, o = 0; i < paths.length; i++, o += STAT_FIELDS) {
    const size = stats[o + 1]
    const mode = stats[o + 4]
    if (size <= maxFileBytes && (mode & S_IFMT) === S_IFREG) continue
    const reason = skipReasonOf({ size, mode, mtimeMs: stats[o + 2], ino: stats[o + 3] }, maxFileBytes)
    if (reason) out.push({ path: paths[i], reason })
  }
  return out
}
