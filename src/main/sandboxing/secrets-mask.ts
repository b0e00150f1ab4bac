import path from 'node:path'
import { HOME_CREDENTIALS } from '../containment/denylist'
import { isInsideResolved } from '../containment/paths'
import {
  MAX_WALK_ENTRIES,
  walkedFolders,
  walkProjectSecrets,
  type ProjectSecrets,
} from '../containment/project-secrets'
import { createChangeTracker, type ChangeTracker } from '../snapshot/changeTracker'

/*
 * What the command sandbox hides (docs/sandbox.md): the file tools refuse `.env` and
 * keys, so `cat .env` from a command must not read them either. Secret files in
 * the project are found by the walk (containment/project-secrets.ts) and masked; credentials in
 * $HOME are never mounted, and those inside toolchain folders bound back (`~/.cargo/credentials.toml`) are masked; a few system
 * secrets are masked too, since a root sandbox keeps uid 0 on the host's files.
 */

/*
 * In a long-lived process the folders' stats are skipped too: a change tracker
 * (inotify, the snapshotter's) watches every folder the walk entered, and while
 * it vouches that nothing was missed only the folders it names are looked at
 * again. A fresh watch is first checked by one stat walk (changes made while it
 * was being set up are not reported); anywhere it cannot vouch, the stat walk runs.
 */

/** Smaller trees stat-walk in well under a millisecond: not worth the watches. */
export const TRACK_MIN_DIRS = 200
const MAX_TRACKED_ROOTS = 4

interface Tracking {
  tracker: ChangeTracker
  /** The folders watched, joined: a walk that finds other folders watches afresh. */
  dirs: string
  /** A stat walk ran after the watch started: its reports can be trusted from now on. */
  verified: boolean
  /** What the last walk found: returned as is while the tracker reports nothing at all. */
  found?: ProjectSecrets
}

const tracking = new Map<string, Tracking>()
/** Roots where watching failed (out of inotify watches): never asked again. */
const untrackable = new Set<string>()
let trackingOn = process.platform === 'linux'

/** Switches the tracker on or off for this process (tests, benches); off closes every watch. */
export function setSecretsTracking(on: boolean): void {
  trackingOn = on
  if (!on) {
    for (const t of tracking.values()) t.tracker.close()
    tracking.clear()
  }
}

/** How the last `refreshProjectSecrets` of `root` found its folders, for tests and benches. */
export const lastRefresh = new Map<string, { statted: number; tracked: boolean }>()

/** The project's secret files (findProjectSecrets), skipping the stats of folders an inotify tracker vouches for. */
export async function refreshProjectSecrets(
  rootIn: string,
  maxEntries = MAX_WALK_ENTRIES,
): Promise<ProjectSecrets> {
  const root = path.resolve(rootIn)
  const t = trackingOn ? tracking.get(root) : undefined
  let unchanged: ((dir: string) => boolean) | undefined
  if (t) {
    const report = await t.tracker.collect()
    if (t.verified && report.trusted && report.paths.size === 0 && t.found) {
      lastRefresh.set(root, { statted: 0, tracked: true })
      return t.found
    }
    if (t.verified && report.trusted) {
      const changed = new Set<string>()
      for (const rel of report.paths) {
        const abs = path.join(root, rel)
        changed.add(abs)
        changed.add(path.dirname(abs))
      }
      unchanged = (dir) => !changed.has(dir)
    }
  }
  let statted = 0
  const counted = unchanged && ((dir: string) => unchanged!(dir) || (statted++, false))
  const found = walkProjectSecrets(root, maxEntries, counted)
  const dirs = walkedFolders(root)
  lastRefresh.set(root, { statted: counted ? statted : dirs.length, tracked: Boolean(counted) })
  if (!trackingOn || untrackable.has(root)) return found
  if (found.truncatedAt !== undefined || dirs.length < TRACK_MIN_DIRS) {
    t?.tracker.close()
    tracking.delete(root)
    return found
  }
  const key = dirs.join('\n')
  if (t && t.dirs === key) {
    t.verified = t.tracker.watching
    t.found = found
    return found
  }
  const tracker = t?.tracker ?? createChangeTracker(root)
  tracker.watch(dirs.map((d) => path.relative(root, d)))
  if (!tracker.watching) {
    tracker.close()
    tracking.delete(root)
    untrackable.add(root)
    return found
  }
  tracking.delete(root)
  tracking.set(root, { tracker, dirs: key, verified: false })
  for (const [old, other] of tracking)
    if (tracking.size > MAX_TRACKED_ROOTS) {
      other.tracker.close()
      tracking.delete(old)
    }
  return found
}

/** True when `p` is a home credential or lies inside one (so it may never be bound back). */
export function isHomeCredential(p: string, home: string): boolean {
  return HOME_CREDENTIALS.some((c) => isInsideResolved(path.join(home, c), path.resolve(p)))
}
