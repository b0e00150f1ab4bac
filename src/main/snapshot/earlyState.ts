import { loadState, type SavedState } from './savedState'
import { statFiles } from './statFiles'

/*
 * A saved state (savedState.ts) read, and the stats it vouches with started on a
 * helper thread, before the program that uses them has finished loading: the CLI's
 * entry calls `prefetchSavedState` for `stepwise edit` before it imports the rest
 * (~0.35 s of module loading on the main thread), so a big tree's ~0.25 s of stats
 * is over when the session's baseline asks for them. Only the first snapshotter to
 * restore that very file in this process takes them (`takePrefetched`); a guess at
 * the wrong file or root is never taken, and costs one helper's work.
 */

export interface Prefetched {
  state: SavedState
  /** When the stats started (Date.now()): the snapshot made from them shows the tree as of then. */
  startedAt: number
  /** STAT_FIELDS per path of `state.listing.paths`, when the state has stats to check. */
  stats?: Promise<Float64Array>
}

let prefetched: (Prefetched & { file: string; root: string }) | undefined

/**
 * Reads `file`'s state for `root` and starts its stats; nothing when there is no usable state.
 * Says whether there was one: without it the session takes a first baseline of the whole tree.
 */
export function prefetchSavedState(file: string, root: string): boolean {
  const loaded = loadState(file, root)
  if (!loaded?.listing) return false
  // The listing's bytes (a view of the whole file) go to the stat helper, copied at once, and are
  // not kept: the state waits here until a snapshotter takes it, or for the process's life.
  const { encodedPaths, ...state } = loaded
  const startedAt = Date.now()
  const stats = state.stats && statFiles(root, loaded.listing.paths, { encoded: encodedPaths })
  stats?.catch(() => undefined) // never taken: not an unhandled rejection
  prefetched = { file, root, state, startedAt, stats }
  return true
}

/** What `prefetchSavedState` started for this file and root, once; undefined otherwise. */
export function takePrefetched(file: string, root: string): Prefetched | undefined {
  const p = prefetched
  if (!p || p.file !== file || p.root !== root) return undefined
  prefetched = undefined
  return p
}
