import fs from 'node:fs'
import path from 'node:path'
import ignore, { type Ignore } from 'ignore'

/**
 * `.gitignore` rules (root and nested) evaluated the way git and ripgrep do: a
 * deeper file overrides a shallower one, and nothing under an ignored directory
 * can be re-included. Listing and search use ripgrep directly; this answers
 * `isIgnored` for single paths with the same rules.
 */
export function createGitignoreMatcher(root: string): (rel: string) => boolean {
  // Re-read a .gitignore only when it changes, so a model editing it sees the effect.
  const cache = new Map<string, { mtimeMs: number; size: number; rules: Ignore | null }>()

  // When each folder's .gitignore was last stat'd, to trust far ancestors for TRUST_MS.
  const checked = new Map<string, number>()

  /** A folder's rules; `trustSince` allows a stat made after it to stand for a fresh one. */
  const rulesFor = (dirRel: string, trustSince?: number): Ignore | null => {
    // Concatenated, not path.join: normalizing each ancestor's path cost more than the stats.
    const file = dirRel === '' ? `${root}/.gitignore` : `${root}/${dirRel}/.gitignore`
    const last = checked.get(file)
    if (trustSince !== undefined && last !== undefined && last >= trustSince)
      return cache.get(file)?.rules ?? null
    checked.set(file, Date.now())
    // Most directories have no .gitignore: a stat that throws would cost 5× more.
    const stat = reachableStat(file)
    if (!stat || stat === 'unreachable') {
      cache.delete(file)
      return null
    }
    const hit = cache.get(file)
    if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) return hit.rules
    let rules: Ignore | null
    try {
      rules = ignore().add(fs.readFileSync(file, 'utf8'))
    } catch {
      rules = null
    }
    cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, rules })
    return rules
  }

  /**
   * Each folder's verdict (ignored as a directory, itself or through an ancestor), kept with the
   * signature of the .gitignore files above it that it was judged with: a path's verdict then
   * reuses its parent folder's instead of judging every ancestor again. Before this, a path
   * d/d/…/d 1,000 deep cost a million rule tests, and a listing of the chain took 22 s.
   */
  const folders = new Map<string, { signature: string; ignored: boolean }>()

  return (rel: string) => {
    if (rel === '' || rel === '.') return false
    const parts = rel.split('/').filter((p) => p !== '')
    const joined = parts.join('/')
    // starts[i]: where parts[i] begins in `joined`, so a sub-path is one slice, not a join.
    const starts: number[] = []
    for (let i = 0, at = 0; i < parts.length; at += parts[i].length + 1, i++) starts.push(at)
    const prefixOf = (end: number) => (end === 0 ? '' : joined.slice(0, starts[end] - 1))

    // The ancestors that hold a .gitignore (root first), each stat'd once per call so an
    // edit is seen at once; the signature names which files, at which versions, applied.
    // Each stat walks the whole path in the kernel, so stat'ing every ancestor on every call
    // made a chain 1,000 deep cost a billion path steps: only the root and the FRESH_LEVELS
    // nearest folders are stat'd every time, farther ones at most once per TRUST_MS.
    const holders: { depth: number; rules: Ignore }[] = []
    const signatures: string[] = []
    const trustSince = Date.now() - TRUST_MS
    for (let depth = 0; depth < parts.length; depth++) {
      const far = depth > 0 && parts.length - depth > FRESH_LEVELS
      const rules = rulesFor(prefixOf(depth), far ? trustSince : undefined)
      if (!rules) continue
      holders.push({ depth, rules })
      signatures.push(`${depth}:${versionOf(prefixOf(depth))}`)
    }

    /** The verdict of the deepest .gitignore with an opinion on parts[0..end) (a directory when isDir). */
    const verdict = (end: number, isDir: boolean): boolean => {
      let ignored = false
      const endChar = end < parts.length ? starts[end] - 1 : joined.length
      for (const { depth, rules } of holders) {
        if (depth >= end) break
        const result = rules.test(joined.slice(starts[depth], endChar) + (isDir ? '/' : ''))
        if (result.ignored) ignored = true
        else if (result.unignored) ignored = false
      }
      return ignored
    }

    // Nothing under an ignored directory can be re-included. Folders are judged from the
    // deepest one still known under the same .gitignore files, downwards.
    let known = parts.length - 1
    const signatureAt = (end: number) =>
      signatures.filter((s) => Number(s.slice(0, s.indexOf(':'))) < end).join('|')
    let ignoredAbove = false
    for (; known > 0; known--) {
      const hit = folders.get(prefixOf(known))
      if (hit && hit.signature === signatureAt(known)) {
        ignoredAbove = hit.ignored
        break
      }
    }
    for (let end = known + 1; end < parts.length && !ignoredAbove; end++) {
      ignoredAbove = verdict(end, true)
      folders.set(prefixOf(end), { signature: signatureAt(end), ignored: ignoredAbove })
    }
    if (ignoredAbove) return true
    const full = `${root}/${joined}`
    // A path longer than PATH_MAX (or through a symlink loop) can be neither read nor
    // listed, by us or by ripgrep: it counts as ignored, so walks skip it instead of failing.
    if (full.length >= PATH_MAX) return true
    const stat = reachableStat(full)
    if (stat === 'unreachable') return true
    return verdict(parts.length, stat?.isDirectory() ?? false)
  }

  /** The version of a folder's .gitignore that rulesFor last read. */
  function versionOf(dirRel: string): string {
    const hit = cache.get(dirRel === '' ? `${root}/.gitignore` : `${root}/${dirRel}/.gitignore`)
    return hit ? `${hit.mtimeMs}:${hit.size}` : ''
  }
}

/** The folders above a path whose .gitignore is looked at on every check (the root always is). */
const FRESH_LEVELS = 16

/** How long a farther folder's .gitignore, once looked at, is trusted without a new look. */
const TRUST_MS = 1000

/** Linux's limit on a path handed to the kernel, terminating NUL included (macOS: 1,024). */
const PATH_MAX = process.platform === 'linux' ? 4096 : 1024

/** A path's stat; undefined when it does not exist, 'unreachable' when its name cannot be resolved. */
function reachableStat(file: string): fs.Stats | undefined | 'unreachable' {
  try {
    // Most paths checked do not exist: a stat that throws would cost 5× more.
    return fs.statSync(file, { throwIfNoEntry: false })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
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
