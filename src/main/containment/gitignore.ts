import fs from 'node:fs'
import path from 'node:path'
import { boundedIgnore, type BoundedIgnore } from './bounded-ignore'
import { parentOf } from './paths'
import { errnoCode } from '../../shared/errors'

/** One folder's .gitignore as last read, and when it was last looked at. */
interface RulesFile {
  rules: BoundedIgnore | null
  version: string
  checkedAt: number
}

/** A .gitignore that applies below its folder; `skip` is its folder's length plus the slash. */
interface Holder {
  skip: number
  rules: BoundedIgnore
}

/**
 * A folder's verdict and the rules that apply to what it holds, built once from its parent's:
 * a path is judged from its parent folder's record alone, never by walking its ancestors' names.
 */
interface Folder {
  rel: string
  parent: Folder | null
  own: RulesFile
  /** Ignored as a directory, itself or through an ancestor. */
  ignored: boolean
  /** Every .gitignore at or above this folder, root first. */
  holders: readonly Holder[]
  /** The .gitignore generation it was built in: any change seen anywhere starts a new one. */
  generation: number
  /** Until when the looks at the .gitignore files of this folder and above are trusted (trustFor). */
  trustedUntil: number
}

/**
 * `.gitignore` rules (root and nested) evaluated the way git and ripgrep do: a
 * deeper file overrides a shallower one, and nothing under an ignored directory
 * can be re-included. Listing and search use ripgrep directly; this answers
 * `isIgnored` for single paths with the same rules.
 *
 * Cost: a check hashes its path a fixed number of times and stats a bounded number of paths,
 * each folder's record is built once, so a walk down a chain n deep does O(n) work per folder
 * (before: per ancestor per path, a chain 2,000 deep took over a minute).
 */
export function createGitignoreMatcher(root: string): (rel: string, isDir?: boolean) => boolean {
  const folders = new Map<string, Folder>() // by folder ('' for the root)
  let generation = 0

  /** Looks at a folder's .gitignore now (a stat; a read when it changed). A change starts a new generation. */
  const look = (dirRel: string, prev: RulesFile | undefined, now: number): RulesFile => {
    const next = lookAt(dirRel === '' ? `${root}/.gitignore` : `${root}/${dirRel}/.gitignore`, prev, now)
    if (prev && next !== prev) generation++
    return next
  }

  const current = (folder: Folder | undefined, now: number): folder is Folder =>
    folder !== undefined && folder.generation === generation && folder.trustedUntil >= now

  /** A folder's record: the nearest current one above it, then one record per folder down to it. */
  const folderOf = (rel: string, now: number): Folder => {
    const missing: string[] = []
    let above: Folder | undefined
    for (let at = rel; ;) {
      const hit = folders.get(at)
      if (current(hit, now)) {
        above = hit
        break
      }
      missing.push(at)
      if (at === '') break
      at = parentOf(at)
    }
    // Nothing current above: the walk went up to the root (''), the last of `missing`.
    let folder = above ?? build(missing.pop() ?? '', null, now)
    for (let i = missing.length - 1; i >= 0; i--) folder = build(missing[i], folder, now)
    return folder
  }

  const build = (rel: string, parent: Folder | null, now: number): Folder => {
    const old = folders.get(rel)?.own
    // Nothing under an ignored directory can be re-included: its own rules do not matter.
    const ignored = parent !== null && (parent.ignored || verdict(parent.holders, rel, true))
    // A look younger than half its trust keeps the rebuilt chain current for at least that long.
    const trust = trustFor(root.length + rel.length)
    const own = old && (ignored || old.checkedAt >= now - trust / 2) ? old : look(rel, old, now)
    const holders = parent?.holders ?? []
    const folder: Folder = {
      rel,
      parent,
      own,
      ignored,
      holders:
        own.rules && !ignored
          ? [...holders, { skip: rel === '' ? 0 : rel.length + 1, rules: own.rules }]
          : holders,
      generation,
      trustedUntil: Math.min(parent?.trustedUntil ?? Infinity, own.checkedAt + trust),
    }
    folders.set(rel, folder)
    return folder
  }

  /**
   * Looks again at the root's .gitignore and those of the nearest folders above a path, so an
   * edit there is seen at once: up to FRESH_LEVELS of them, fewer on a long path (each stat walks
   * the whole path in the kernel). False when one changed.
   */
  const lookNear = (folder: Folder, now: number): boolean => {
    const before = generation
    let budget = FRESH_PATH_BYTES
    for (
      let at: Folder | null = folder, level = 0;
      at && at.rel !== '' && level < FRESH_LEVELS;
      at = at.parent, level++
    ) {
      budget -= root.length + at.rel.length
      if (budget < 0) break
      at.own = look(at.rel, at.own, now)
    }
    const top = folders.get('')
    if (top) top.own = look('', top.own, now)
    return generation === before
  }

  /** `isDir`, when the caller knows (a walk's directory entry), saves the stat that would tell. */
  return (rel: string, isDir?: boolean) => {
    if (rel === '' || rel === '.') return false
    const joined = withoutEmptyParts(rel)
    const full = `${root}/${joined}`
    // A path longer than PATH_MAX (or through a symlink loop) can be neither read nor
    // listed, by us or by ripgrep: it counts as ignored, so walks skip it instead of failing.
    if (full.length >= PATH_MAX) return true
    const now = Date.now()
    const parentRel = parentOf(joined)
    let parent = folderOf(parentRel, now)
    if (!lookNear(parent, now)) parent = folderOf(parentRel, now)
    if (parent.ignored) return true
    if (isDir !== undefined) return verdict(parent.holders, joined, isDir)
    const stat = reachableStat(full)
    if (stat === 'unreachable') return true
    return verdict(parent.holders, joined, stat?.isDirectory() ?? false)
  }
}

/** `rel` without a leading, trailing or doubled slash. */
function withoutEmptyParts(rel: string): string {
  if (!/^\/|\/\/|\/$/.test(rel)) return rel
  return rel
    .split('/')
    .filter((p) => p !== '')
    .join('/')
}

/** The .gitignore at `file` now: `prev` itself (its look time renewed) when unchanged, else read anew. */
function lookAt(file: string, prev: RulesFile | undefined, now: number): RulesFile {
  // Most directories have no .gitignore: a stat that throws would cost 5× more.
  const stat = reachableStat(file)
  const version = stat && stat !== 'unreachable' ? `${stat.mtimeMs}:${stat.size}` : ''
  if (prev && prev.version === version) {
    prev.checkedAt = now
    return prev
  }
  let rules: BoundedIgnore | null = null
  if (version !== '') {
    try {
      rules = boundedIgnore(fs.readFileSync(file, 'utf8'))
    } catch {
      rules = null
    }
  }
  return { rules, version, checkedAt: now }
}

/** The verdict of the deepest .gitignore with an opinion on `rel` (a directory when isDir). */
function verdict(holders: readonly Holder[], rel: string, isDir: boolean): boolean {
  let ignored = false
  for (const { skip, rules } of holders) {
    const result = rules.test(rel.slice(skip) + (isDir ? '/' : ''))
    if (result.ignored) ignored = true
    else if (result.unignored) ignored = false
  }
  return ignored
}

/** The folders above a path whose .gitignore is looked at on every check (the root always is). */
const FRESH_LEVELS = 16

/** …as long as the paths stat'd for them add up to no more than this (16 paths of 512 bytes). */
const FRESH_PATH_BYTES = 8192

/** How long a farther folder's .gitignore, once looked at, is trusted without a new look. */
const TRUST_MS = 1000

/**
 * How long a look at the .gitignore of a folder whose path is `bytes` long is trusted: a second,
 * and a second more per 256 bytes past the first 256. Each look walks the whole path in the
 * kernel, so looking at every folder of a chain n deep every second cost O(n²) a second (a
 * 2,000-deep chain spent 3 of its 19 s starting on it); this keeps it O(n).
 */
function trustFor(bytes: number): number {
  return TRUST_MS * Math.max(1, Math.ceil(bytes / 256))
}

/** Linux's limit on a path handed to the kernel, terminating NUL included (macOS: 1,024). */
const PATH_MAX = process.platform === 'linux' ? 4096 : 1024

/** A path's stat; undefined when it does not exist, 'unreachable' when its name cannot be resolved. */
function reachableStat(file: string): fs.Stats | undefined | 'unreachable' {
  try {
    // Most paths checked do not exist: a stat that throws would cost 5× more.
    return fs.statSync(file, { throwIfNoEntry: false })
  } catch (err) {
    const code = errnoCode(err)
    if (code === 'ENOTDIR') return undefined
    if (code === 'ENAMETOOLONG' || code === 'ELOOP') return 'unreachable'
    throw err
  }
}

/**
 * ripgrep started on a sub-directory (`rg --files src`) does not read the
 * `.gitignore` files of the directories above it (we pass `--no-ignore-parent`, so
 * nothing outside the project leaks in either). This returns the rules of those
 * ancestors, from the root down to `prefix`'s parent, rewritten to be relative to
 * the root, for one `--ignore-file`: later lines win, as deeper files do in git.
 * Null when no ancestor has a `.gitignore`.
 */
export function ancestorGitignoreRules(root: string, prefix: string): string | null {
  const parts = prefix.split('/').filter((p) => p !== '' && p !== '.')
  const out: string[] = []
  for (let depth = 0; depth < parts.length; depth++) {
    const dir = parts.slice(0, depth).join('/')
    let text: string
    try {
      text = fs.readFileSync(path.join(root, dir, '.gitignore'), 'utf8')
    } catch {
      continue
    }
    for (const line of text.split(/\r?\n/)) {
      const rule = rebaseRule(line, dir)
      if (rule !== undefined) out.push(rule)
    }
  }
  return out.length > 0 ? out.join('\n') + '\n' : null
}

/** A gitignore line from `dir/.gitignore`, rewritten to mean the same from the root. */
export function rebaseRule(line: string, dir: string): string | undefined {
  let rule = line.replace(/(?<!\\)\s+$/, '')
  if (rule === '' || rule.startsWith('#')) return undefined
  if (dir === '') return rule
  const negated = rule.startsWith('!')
  if (negated) rule = rule.slice(1)
  // A slash at the start or in the middle anchors the pattern to its directory;
  // otherwise it matches at any depth below it.
  const anchored = rule.replace(/\/$/, '').includes('/')
  const rebased = anchored ? `/${dir}/${rule.replace(/^\//, '')}` : `/${dir}/**/${rule}`
  return (negated ? '!' : '') + rebased
}
