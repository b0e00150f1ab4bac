import type { SnapshotFile } from '../store/types'
import { namesChanged } from './sortedPaths'

/**
 * The arithmetic of a snapshot, apart from the files themselves: which paths a listing
 * may capture, which paths a snapshot must look at again, what it drops from the
 * previous manifest, and which captured files only their content vouches for. Pure:
 * no file system, no store.
 */

/** A listed path that stays inside the root (no absolute path, `..` segment, NUL or backslash). */
export function isSafeRelative(p: string): boolean {
  if (!p || p.startsWith('/') || p.includes('\0') || p.includes('\\')) return false
  return !p.includes('..') || !p.split('/').includes('..')
}

/** A listing as a snapshot captures it: safe paths only, sorted and without duplicates. */
export function listedPaths(listed: readonly string[]): string[] {
  const paths = listed.filter(isSafeRelative)
  let sorted = true
  for (let i = 1; i < paths.length && sorted; i++) sorted = paths[i - 1] < paths[i]
  return sorted ? paths : [...new Set(paths)].sort()
}

/**
 * The paths a snapshot that is not a full capture looks at, sorted: those `named`
 * (by file events or by stats that differ), and those listed now and not before or
 * before and not now.
 */
export function candidatePaths(
  named: ReadonlySet<string>,
  listedBefore: readonly string[],
  listed: readonly string[],
): string[] {
  const candidates = new Set(named)
  if (listed !== listedBefore) for (const p of namesChanged(listedBefore, listed)) candidates.add(p)
  return [...candidates].sort()
}

/**
 * Paths of the previous manifest (sorted) not among the files captured now: the
 * deletions of a full capture, in path order.
 */
export function notCaptured(previous: readonly SnapshotFile[], captured: readonly SnapshotFile[]): string[] {
  const kept = new Set(captured.map((f) => f.path))
  return previous.filter((f) => !kept.has(f.path)).map((f) => f.path)
}

/** The racily clean files of a capture by their index in `paths` (both in path order). */
export function untrustedOf(
  paths: readonly string[],
  racy: ReadonlyArray<{ path: string; hash: string }>,
): Map<number, string> {
  const out = new Map<number, string>()
  for (let i = 0, r = 0; i < paths.length && r < racy.length; i++)
    if (paths[i] === racy[r].path) out.set(i, racy[r++].hash)
  return out
}
