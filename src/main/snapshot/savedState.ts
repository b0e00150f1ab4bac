import { createHash } from 'node:crypto'
import path from 'node:path'
import { z } from 'zod'
import { IGNORE_FILE_NAMES, type ListingState } from './listingCache'
import { bytesOf, float64s, readFlatFile, writeFlatFile, type FlatFileRead } from '../store/flatFile'
import { STAT_FIELDS } from './statFiles'

/**
 * What a snapshotter knows after a snapshot, kept in a flat file so that the next
 * process (each `stepwise edit` is one) starts where this one stopped, as git
 * starts from its index: the file listing with the stats that vouch for it, and
 * the stats every listed file had when the snapshot was taken. Loading it costs
 * a read and a few array copies (a few MB for 70,000 files) where the listing,
 * the directory walk and the stat-cache rows cost seconds.
 *
 * It is a cache and nothing more: the database stays the truth. A state is only
 * used when the newest snapshot of the root still has the manifest it names;
 * anything missing, stale, truncated or of another version is ignored (the
 * snapshot then lists and stats as before). It is replaced whole by a rename, so
 * a crash leaves the old file or the new one, never half of one.
 */

const MAGIC = 'stepwise-snapshot-state 2'

export interface SavedState {
  /** The manifest of the snapshot this state was taken with. */
  manifestHash: string
  /** The listing, when the snapshotter keeps one (see listingCache.ts). */
  listing?: ListingState
  /**
   * Set when capturing the listing again with exactly these stats (STAT_FIELDS
   * per path of `listing.paths`) is bound to give `manifestHash` again: no file
   * was skipped for a reason its stat does not show, read while racily clean, or
   * changing.
   */
  stats?: Float64Array
  /**
   * With `stats`: files (by index in `listing.paths`) whose stat alone does not vouch
   * for them, with the manifest's hash for each (reproduce.ts).
   */
  untrusted?: ReadonlyMap<number, string>
  /** As loaded: `listing.paths` as the file holds them, UTF-8 with a NUL between (statFiles' `encoded`). */
  encodedPaths?: Uint8Array
}

const headerSchema = z.object({
  magic: z.string(),
  root: z.string(),
  manifestHash: z.string(),
  /** Byte lengths of the sections that follow the header line, in order. */
  sections: z.array(z.number()),
  hasListing: z.boolean(),
  hasStats: z.boolean(),
  /** [index, hash] pairs: see SavedState.untrusted. */
  untrusted: z.array(z.tuple([z.number(), z.string()])).optional(),
})
type Header = z.infer<typeof headerSchema>

/** The state file of one root and listing policy (`key`: what decides what is listed) in `dir`. */
export function stateFileFor(dir: string, root: string, key: string): string {
  const name = createHash('sha256').update(`${root}\0${key}`).digest('hex').slice(0, 32)
  return path.join(dir, `${name}.state`)
}

/** The state file of `root` in a store's data folder, for a sandbox denying `denyPatterns`. */
export function stateFileIn(dataDir: string, root: string, denyPatterns: readonly string[]): string {
  return stateFileFor(path.join(dataDir, 'snapshot-state'), root, denyPatterns.join('\0'))
}

/** Writes `state` for `root` to `file` (a new file renamed over the old one). */
export function saveState(file: string, root: string, state: SavedState): void {
  const sections: Buffer[] = []
  const l = state.listing
  if (l) {
    sections.push(Buffer.from(l.paths.join('\0'), 'utf8'), Buffer.from(l.directories.join('\0'), 'utf8'))
    sections.push(bytesOf(l.dirStats), bytesOf(l.trusted), bytesOf(l.fileStats))
  }
  if (l && state.stats) sections.push(bytesOf(state.stats))
  const header: Header = {
    magic: MAGIC,
    root,
    manifestHash: state.manifestHash,
    sections: sections.map((b) => b.length),
    hasListing: l !== undefined,
    hasStats: l !== undefined && state.stats !== undefined,
    untrusted: state.untrusted && [...state.untrusted],
  }
  writeFlatFile(file, header, sections)
}

/** The state saved for `root` in `file`, or undefined when there is none or it cannot be trusted to be whole. */
export function loadState(file: string, root: string): SavedState | undefined {
  // The stats, when there are any, are the last section: read straight into their array.
  const read = readFlatFile(file, headerSchema, (h) => (h.hasStats ? (h.sections.at(-1) ?? 0) : 0))
  if (!read) return undefined
  try {
    return parse(read, root)
  } catch {
    return undefined // truncated or garbled: as if there were none
  }
}

/** `tail`: the last section, when readFlatFile read it apart (then it is not in `data`). */
function parse(
  { header: h, data, at: start, tail }: FlatFileRead<Header>,
  root: string,
): SavedState | undefined {
  if (h.magic !== MAGIC || h.root !== root || typeof h.manifestHash !== 'string') return undefined
  let at = start
  const total = h.sections.reduce((a, b) => a + b, 0)
  if (at + total !== data.length + (tail?.byteLength ?? 0)) return undefined
  const next = () => {
    const len = h.sections.shift()!
    const span = { at, len }
    at += len
    return span
  }
  const text = (s: { at: number; len: number }) => data.toString('utf8', s.at, s.at + s.len).split('\0')
  if (!h.hasListing) return { manifestHash: h.manifestHash }
  const p = next()
  const paths = text(p)
  const directories = text(next())
  const d = next()
  const dirStats = float64s(data, d.at, d.len)
  const t = next()
  const trusted = Uint8Array.from(data.subarray(t.at, t.at + t.len))
  const f = next()
  const fileStats = float64s(data, f.at, f.len)
  // An empty listing joins to '' and splits to [''].
  if (paths.length === 1 && paths[0] === '') paths.length = 0
  const n = directories.length
  if (
    dirStats.length !== n * 3 ||
    trusted.length !== n ||
    fileStats.length !== n * IGNORE_FILE_NAMES.length * 4
  )
    return undefined
  const listing: ListingState = { paths, directories, dirStats, trusted, fileStats }
  const encodedPaths = data.subarray(p.at, p.at + p.len)
  if (!h.hasStats) return { manifestHash: h.manifestHash, listing, encodedPaths }
  const s = next()
  if (tail && s.at !== data.length) return undefined // the tail read apart was not this section
  const stats = tail ?? float64s(data, s.at, s.len)
  if (stats.length !== paths.length * STAT_FIELDS) return undefined
  const untrusted = new Map(h.untrusted ?? [])
  for (const [i, hash] of untrusted)
    if (!Number.isInteger(i) || i < 0 || i >= paths.length || typeof hash !== 'string') return undefined
  return { manifestHash: h.manifestHash, listing, stats, encodedPaths, ...(h.untrusted && { untrusted }) }
}
