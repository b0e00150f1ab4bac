import fs from 'node:fs'
import path from 'node:path'
import { HOME_CREDENTIALS, isSecretName } from '../containment/denylist'
import { createChangeTracker, type ChangeTracker } from '../snapshot/changeTracker'
import { loadScans, saveScans, type DirEntry } from './secrets-scan-state'
import { pushAll } from '../../shared/arrays'

/*
 * What the command sandbox hides (docs/sandbox.md): the file tools refuse `.env` and
 * keys, so `cat .env` from a command must not read them either. Secret files in
 * the project are found by a walk (never into node_modules or .git; past a limit
 * commands are refused rather than run half-masked) and masked; credentials in
 * $HOME are never mounted, and those inside toolchain folders bound back (`~/.cargo/credentials.toml`) are masked; a few system
 * secrets are masked too, since a root sandbox keeps uid 0 on the host's files.
 */

/** Folders the walk never enters: huge, and masked or bound read-only on their own. */
const SKIP_DIRS = new Set(['node_modules', '.git'])

/**
 * Past this many directory entries the walk stops, and sandboxed commands are refused until the
 * tree is smaller (docs/sandbox.md#limits): a mask drawn from part of the tree would fail open.
 */
export const MAX_WALK_ENTRIES = 200_000

export interface ProjectSecrets {
  /** Absolute paths of secret files (and folders) to mask. */
  secrets: string[]
  /** Every `.git` (folder or file) met, the project's own first: bound read-only. */
  gitPaths: string[]
  /**
   * Files with more than one hard link, some name of which the walk did not meet (it may be
   * outside the project, and writing the shared inode would write there). Bound read-only.
   */
  hardLinks: string[]
  /**
   * The entry count past which the walk stopped, when it did: the rest of the tree was not looked
   * at, so what is above is incomplete (the root's own entries are always in it).
   */
  truncatedAt?: number
  entries: number
}

/**
 * Per project root, what each folder held at its last mtime: a rescan only re-reads
 * changed folders. A new process starts from what the last one saved (secrets-scan-state.ts).
 */
const scans = new Map<string, Map<string, DirEntry>>()

function readDir(root: string, dir: string, mtimeMs: number): DirEntry {
  const out: DirEntry = { mtimeMs, secrets: [], gits: [], hardLinks: [], subdirs: [], entries: 0 }
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return out // unreadable: the sandboxed command cannot read it either
  }
  out.entries = entries.length
  for (const entry of entries) {
    const full = path.join(dir, entry.name)
    if (entry.name === '.git') out.gits.push(full)
    else if (isSecretName(path.relative(root, full)) && !entry.isSymbolicLink()) out.secrets.push(full)
    else if (entry.isDirectory() && !SKIP_DIRS.has(entry.name)) out.subdirs.push(full)
    else if (entry.isFile() && linkCount(full) > 1) out.hardLinks.push(full)
  }
  return out
}

/**
 * A file's number of names; 1 when it cannot be looked at: gone, or a path past PATH_MAX
 * (ENAMETOOLONG), which no command can open either, so it needs no mount.
 */
function linkCount(file: string): number {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false })?.nlink ?? 1
  } catch {
    return 1
  }
}

/**
 * Secret files and `.git` entries under `root`, breadth first (secrets sit near
 * the top), symlinks not followed (a link's target is masked where it lives, or
 * is outside the project and read-only anyway). Runs before every command, so
 * it remembers each folder's listing and re-reads only folders whose mtime
 * changed (a file created, removed or renamed in them): one stat per folder.
 */
export function findProjectSecrets(root: string, maxEntries = MAX_WALK_ENTRIES): ProjectSecrets {
  return walk(root, maxEntries, undefined)
}

/** `unchanged(dir)`: the change tracker vouches that the folder's listing is what it was. */
function walk(
  root: string,
  maxEntries: number,
  unchanged: ((dir: string) => boolean) | undefined,
): ProjectSecrets {
  const out: ProjectSecrets = { secrets: [], gitPaths: [], hardLinks: [], entries: 0 }
  const links: string[] = []
  const firstInProcess = !scans.has(root)
  const previous = scans.get(root) ?? loadScans(root) ?? new Map<string, DirEntry>()
  const next = new Map<string, DirEntry>()
  let reread = false
  const queue = [root]
  for (let i = 0; i < queue.length; i++) {
    const dir = queue[i]
    const known = previous.get(dir)
    let entry: DirEntry | undefined = known && unchanged?.(dir) ? known : undefined
    if (!entry) {
      let mtimeMs: number | undefined
      try {
        mtimeMs = fs.statSync(dir, { throwIfNoEntry: false })?.mtimeMs
      } catch {
        // unreadable: the command cannot enter it either
      }
      if (mtimeMs === undefined) continue
      if (known && known.mtimeMs === mtimeMs) entry = known
      else {
        entry = readDir(root, dir, mtimeMs)
        reread = true
      }
    }
    next.set(dir, entry)
    out.entries += entry.entries
    // A folder's own findings are kept even when it is the one past the limit (the root's `.env`
    // and `.git` above all): only the folders below it go unread.
    pushAll(out.secrets, entry.secrets)
    pushAll(out.gitPaths, entry.gits)
    pushAll(links, entry.hardLinks)
    if (out.entries > maxEntries) {
      out.truncatedAt = maxEntries
      break
    }
    pushAll(queue, entry.subdirs)
  }
  out.hardLinks = linksLeavingTree(links, out.truncatedAt === undefined)
  scans.set(root, next)
  // Saved once per process: the next one re-reads whatever changed since, as this one does.
  if (firstInProcess && (reread || next.size !== previous.size)) saveScans(root, next)
  return out
}

/**
 * The hard-linked files some of whose names the walk did not meet. An inode met under as many
 * names as its link count has every name inside the project (writing it writes only there): it
 * needs no read-only bind, so `ln a b` repeated costs no sandbox argument. Only a complete walk
 * can say so; a name in a folder it skips (node_modules, .git) or a secret's counts as outside
 * (a file that shares a secret's inode is then masked, bwrap.ts).
 */
function linksLeavingTree(links: readonly string[], complete: boolean): string[] {
  if (!complete) return [...links]
  // Link counts read now, not from a folder's remembered listing: a name added elsewhere
  // changes a file's count without touching its folder. (Few files: only those with links.)
  const now = links.flatMap((file) => {
    const st = fs.lstatSync(file, { throwIfNoEntry: false })
    return st ? [{ file, inode: `${st.dev}:${st.ino}`, nlink: st.nlink }] : []
  })
  const met = new Map<string, number>()
  for (const l of now) met.set(l.inode, (met.get(l.inode) ?? 0) + 1)
  return now.filter((l) => met.get(l.inode)! < l.nlink).map((l) => l.file)
}

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

/** findProjectSecrets, skipping the stats of folders an inotify tracker vouches for. */
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
  const found = walk(root, maxEntries, counted)
  const dirs = [...(scans.get(root)?.keys() ?? [])]
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

/** The denylist's home credentials (one list for the policy and the mask). */
export { HOME_CREDENTIALS }

/** Host files that stay secret even from a root sandbox (uid 0 keeps owner access to them). */
export const SYSTEM_SECRETS = [
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/gshadow-',
  '/etc/ssh/ssh_host_rsa_key',
  '/etc/ssh/ssh_host_ecdsa_key',
  '/etc/ssh/ssh_host_ed25519_key',
  '/etc/ssl/private',
  '/root/.ssh',
]

/** Extra folders hosts hide from commands (Stepwise's own data folder). */
const extraHidden = new Set<string>()

/** Hides `dir` (Stepwise's data folder, say) from every sandboxed command in this process. */
export function hideFromCommands(dir: string): void {
  extraHidden.add(path.resolve(dir))
}

export function hiddenByHost(): string[] {
  return [...extraHidden]
}

/**
 * True when `child` is `parent` or below it. Both absolute and normalized (as
 * path.resolve and path.join leave them): a string test, since it runs hundreds
 * of times per command.
 */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true
  return child.startsWith(parent.endsWith('/') ? parent : `${parent}/`)
}

/** True when `p` is a home credential or lies inside one (so it may never be bound back). */
export function isHomeCredential(p: string, home: string): boolean {
  return HOME_CREDENTIALS.some((c) => isInside(path.resolve(p), path.join(home, c)))
}
