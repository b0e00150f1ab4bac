import fs from 'node:fs'
import path from 'node:path'
import { pushAll } from '../../shared/arrays'
import { isSecretName } from './denylist'
import { loadScans, saveScans, type DirEntry } from './secrets-scan-state'

/*
 * The project's secret files, as the walk finds them (docs/sandbox.md): the gate asks for them to
 * know a hard link of a secret by its inode, and the command sandbox (sandboxing/secrets-mask.ts)
 * masks them. Found by a walk that never enters node_modules or .git and stops past a limit (commands
 * are then refused rather than run half-masked). The walk's per-folder results are its state, kept
 * here and in a file beside the store (secrets-scan-state.ts); the sandbox's change tracker only
 * tells it which folders it may skip. Also here: the host files and folders hidden whatever the
 * project (system secrets, Stepwise's data folder).
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
  return walkProjectSecrets(root, maxEntries, undefined)
}

/**
 * findProjectSecrets of a throwaway folder (the sandbox's probe): nothing of it is remembered, in
 * this process or in the data folder, where each probe's folder had left a file never read again.
 */
export function findSecretsOnce(root: string): ProjectSecrets {
  return walkProjectSecrets(root, MAX_WALK_ENTRIES, undefined, { remember: false })
}

/**
 * findProjectSecrets, skipping the stat of each folder for which `unchanged(dir)` is true (the
 * sandbox's change tracker vouches that its listing is what it was).
 */
export function walkProjectSecrets(
  root: string,
  maxEntries: number,
  unchanged: ((dir: string) => boolean) | undefined,
  { remember = true }: { remember?: boolean } = {},
): ProjectSecrets {
  const out: ProjectSecrets = { secrets: [], gitPaths: [], hardLinks: [], entries: 0 }
  const links: string[] = []
  const firstInProcess = !scans.has(root)
  const previous = (remember && (scans.get(root) ?? loadScans(root))) || new Map<string, DirEntry>()
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
  if (!remember) return out
  scans.set(root, next)
  // Saved once per process: the next one re-reads whatever changed since, as this one does.
  if (firstInProcess && (reread || next.size !== previous.size)) saveScans(root, next)
  return out
}

/** The folders the last walk of `root` entered (what a change tracker should watch). */
export function walkedFolders(root: string): string[] {
  return [...(scans.get(root)?.keys() ?? [])]
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
