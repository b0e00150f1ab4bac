import fs from 'node:fs'
import path from 'node:path'
import { defaultDataDir } from '../config/paths'
import { createDenyList, HOME_CREDENTIALS, NOT_SECRET_DENY, type DenyList } from './denylist'
import { findProjectSecrets, hiddenByHost, SYSTEM_SECRETS } from './project-secrets'
import { isStepwiseTemp } from './temp-files'
import { isInside, resolveInside } from './paths'
import { secretContentKind, SECRET_HEAD_BYTES } from './secret-content'
import { hasOtherNames, secretInodes, sharesSecretInode, userHome } from './secret-links'
import { isRefusal, type Gate } from './types'
import { errnoCode } from '../../shared/errors'

/*
 * The gate (docs/sandbox.md#the-gate): the one place that decides whether Stepwise may read or
 * show a file of the project. Every reader asks it at the moment of use, with the path resolved
 * through every link: the file tools, search, the code tools and the index, rule files and the
 * prompt, listings, snapshots, previews and `file-at`, the review tools. It answers:
 *  - outside: the real path leaves the project (a link out, `..`, an absolute path);
 *  - denied/secret: the denylist by name (letter case ignored), the asked name or the real one;
 *  - home credential or data folder: by absolute location, whatever the project root;
 *  - a second name (hard link) of a secret;
 *  - secret by content (the head of the file: PEM keys, PPK, service-account JSON, …);
 *  - special file (FIFO, device, socket), too large.
 * Ignored files are the caller's call: read_file may read one by its exact name, listings skip it.
 */

export interface GateOptions {
  /** More gitignore-syntax patterns to deny, on top of the defaults. */
  extraDeny?: readonly string[]
  /** Default patterns this project allows (exact pattern text, e.g. `dist/`). */
  allowDeny?: readonly string[]
  /** The user's home (default: the OS's). */
  home?: string
  /** Stepwise's data folders (default: the default data folder and any a host hides from commands). */
  dataDirs?: readonly string[]
}

export type { Gate, GatedRead, GateRefusal } from './types'

export { isSecretName } from './denylist'

/** Locations denied whatever the project: home credentials, the data folders, system secrets. */
export function deniedLocations(home: string | undefined, dataDirs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  const add = (p: string, why: string) => {
    out.set(path.resolve(p), why)
    try {
      out.set(fs.realpathSync.native(p), why) // a dotfile manager links ~/.ssh from elsewhere
    } catch {
      // absent: nothing to read there
    }
  }
  if (home && home !== '/')
    for (const rel of HOME_CREDENTIALS) add(path.join(home, rel), `~/${rel} holds the user's credentials`)
  for (const dir of dataDirs) add(dir, "it is Stepwise's data folder (settings, keys, sessions)")
  for (const p of SYSTEM_SECRETS) add(p, 'it is a system secret')
  for (const p of ['/proc', '/sys', '/dev']) add(p, 'it is a kernel or device file')
  return out
}

/** Why opening `root` as a project needs a warning, or undefined. */
export function projectRootWarning(
  root: string,
  home: string | undefined,
  dataDirs: readonly string[],
): string | undefined {
  const held = [...dataDirs].find((d) => isInside(root, path.resolve(d)))
  const what =
    root === '/'
      ? 'the whole disk (/)'
      : home && path.resolve(home) === root
        ? `your home folder (${root})`
        : home && isInside(root, path.resolve(home))
          ? `a folder that holds your home folder (${root})`
          : held
            ? `a folder that holds Stepwise's data folder (${held})`
            : undefined
  if (!what) return undefined
  return (
    `This project is ${what}. Stepwise never lists, searches, snapshots or shows your credentials ` +
    `(~/.ssh, ~/.aws, …) or its own data folder, but everything else in it is open to the agent. ` +
    'Open the project folder itself instead.'
  )
}

export function createGate(realRoot: string, opts: GateOptions = {}): Gate {
  const deny = createDenyList(opts)
  const home = opts.home ?? userHome()
  const dataDirs = opts.dataDirs ?? [defaultDataDir(), ...hiddenByHost()]
  const locations = deniedLocations(home, dataDirs)
  // The denied locations inside the project, root-relative: only these can be met in a listing.
  const insideRoot = [...locations.keys()]
    .filter((abs) => isInside(realRoot, abs) || isInside(abs, realRoot))
    .map((abs) => (isInside(abs, realRoot) ? '' : path.relative(realRoot, abs).split(path.sep).join('/')))

  const deniedLocation = locationMatcher(locations)
  // A temp file of an interrupted write is not a project file (temp-files.ts sweeps it).
  // The list without the folders that are denied for being dependencies or build output, not
  // secrets: for a file under node_modules/ or dist/ that a command changed, read for review.
  let secretsOnly: DenyList | undefined
  const listFor = (inIgnoredFolder: boolean | undefined): DenyList =>
    inIgnoredFolder
      ? (secretsOnly ??= createDenyList({
          ...opts,
          allowDeny: [...(opts.allowDeny ?? []), ...NOT_SECRET_DENY],
        }))
      : deny
  const nameDenied = (rel: string, list = deny) =>
    list.isDenied(rel) ||
    isStepwiseTemp(rel) ||
    insideRoot.some((p) => p === '' || rel === p || rel.startsWith(p + '/'))

  /**
   * The secrets' inodes, read when a file with several names is met (rare: no cost otherwise),
   * and kept a moment so a search meeting many such files walks the secrets once.
   */
  let inodes: { at: number; set: Set<string> } | undefined
  const inodesNow = () => {
    const now = Date.now()
    if (!inodes || now - inodes.at > 1000)
      inodes = { at: now, set: secretInodes(home, findProjectSecrets(realRoot).secrets) }
    return inodes.set
  }

  const resolve: Gate['resolve'] = (input, resolveOpts = {}) => {
    const resolved = resolveInside(realRoot, input)
    if (isRefusal(resolved) || resolveOpts.allowDenied) return resolved
    const where = deniedLocation(resolved.abs)
    if (where) return { error: locationMessage(input, where) }
    const list = listFor(resolveOpts.inIgnoredFolder)

    // What the model asked for and what it resolves to: a link named `notes` pointing at `.env` is `.env`.
    const requested = input.replace(/^\.\/+/, '')
    const why =
      list.reason(resolved.rel) ??
      (requested !== resolved.rel && !requested.startsWith('/') ? list.reason(requested) : undefined)
    if (why !== undefined) return { error: deniedMessage(input, why) }
    // A second name of a credential (`notes.txt` hard-linked to ~/.aws/credentials) is the credential.
    if (hasOtherNames(resolved.abs) && sharesSecretInode(resolved.abs, inodesNow()))
      return {
        error:
          `"${input}" is another name (a hard link) of a secrets file, so the sandbox denies it as it denies the file. ` +
          'Do not try to read or change it another way; if the task really needs it, ask the user.',
      }
    return resolved
  }

  const admits: Gate['admits'] = (rel, admitOpts = {}) => {
    if (nameDenied(rel)) return false
    const resolved = resolve(rel)
    if (isRefusal(resolved)) return false
    if (!admitOpts.content) return true
    return !headIsSecret(resolved.abs)
  }

  return {
    root: realRoot,
    deny,
    rootWarning: projectRootWarning(realRoot, home, dataDirs),
    resolve,
    admits,
    admitsName: (rel, nameOpts = {}) => !nameDenied(rel, listFor(nameOpts.inIgnoredFolder)),
    read,
    checkContent,
    deniedLocation,
  }
}

/** The gate's `read`: the file opened without following a link, checked, then its content. */
const read: Gate['read'] = (file, readOpts) => {
  let fd: number | undefined
  try {
    // O_NOFOLLOW: a file swapped for a link since it was resolved is refused (ELOOP), not
    // followed out of the project; O_NONBLOCK: a FIFO never blocks the open.
    fd = fs.openSync(
      file.abs,
      fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (fs.constants.O_NOFOLLOW ?? 0),
    )
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return { error: `"${file.rel}" is not a regular file (a FIFO, device or socket).` }
    if (stat.size > readOpts.maxBytes)
      return {
        error: `"${file.rel}" is too large (${stat.size} bytes; the limit is ${readOpts.maxBytes}).`,
      }
    const data = fs.readFileSync(fd)
    return checkContent(file.rel, data) ?? { ...file, data, stat }
  } catch (err) {
    const code = errnoCode(err)
    if (code === 'ENOENT')
      return { error: `"${file.rel}" does not exist. Use list_files to see which files exist.` }
    if (code === 'ELOOP')
      return {
        error: `"${file.rel}" was replaced by a symbolic link since it was checked; it cannot be read.`,
      }
    return { error: `"${file.rel}" cannot be read (${code ?? 'error'}).` }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** The gate's `checkContent`: a refusal when the head of `data` is a secret. */
const checkContent: Gate['checkContent'] = (rel, data) => {
  const kind = secretContentKind(data.subarray(0, SECRET_HEAD_BYTES))
  return kind ? { error: contentMessage(rel, kind) } : undefined
}

/** Why `abs` lies in one of `locations` (it or below it), or undefined. */
function locationMatcher(locations: ReadonlyMap<string, string>): (abs: string) => string | undefined {
  // Prefix strings built once: this runs on every resolve.
  const prefixes = [...locations].map(([loc, why]) => ({
    loc,
    prefix: loc.endsWith(path.sep) ? loc : loc + path.sep,
    why,
  }))
  return (abs) => {
    for (const { loc, prefix, why } of prefixes)
      if ((abs === loc || abs.startsWith(prefix)) && isInside(loc, abs)) return why
    return undefined
  }
}

/** True when the first bytes of the regular file at `abs` are a secret by content. */
function headIsSecret(abs: string): boolean {
  let fd: number | undefined
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | (fs.constants.O_NOFOLLOW ?? 0))
    if (!fs.fstatSync(fd).isFile()) return false
    const head = Buffer.alloc(SECRET_HEAD_BYTES)
    const n = fs.readSync(fd, head, 0, head.length, 0)
    return secretContentKind(head.subarray(0, n)) !== undefined
  } catch {
    return false // unreadable: nothing of it can be shown either
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

function deniedMessage(input: string, pattern: string): string {
  if (pattern === '.git/' || pattern === '.git') {
    return `"${input}" is inside .git/, which the file tools never touch; use the git tools (git_status, git_diff, git_log, git_show) instead.`
  }
  return (
    `"${input}" is denied by the sandbox (it matches "${pattern}": secrets, dependencies and build output are off limits to the file tools). ` +
    'Do not try to read or change it another way; if the task really needs it, ask the user.'
  )
}

function locationMessage(input: string, why: string): string {
  return `"${input}" is denied by the sandbox: ${why}. Do not try to read or change it another way; if the task really needs it, ask the user.`
}

function contentMessage(rel: string, kind: string): string {
  return (
    `"${rel}" holds ${kind}, so the sandbox denies it as a secret. ` +
    'Do not try to read it another way; if the task really needs it, ask the user.'
  )
}
