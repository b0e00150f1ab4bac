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

  const rulesFor = (dirRel: string): Ignore | null => {
    const file = path.join(root, dirRel, '.gitignore')
    // Most directories have no .gitignore: a stat that throws would cost 5× more.
    const stat = fs.statSync(file, { throwIfNoEntry: false })
    if (!stat) {
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

  return (rel: string) => {
    if (rel === '' || rel === '.') return false
    const parts = rel.split('/').filter((p) => p !== '')
    // The rules of each ancestor directory (root first), read once per call: every
    // prefix below is judged against these, so the cost is linear in the depth.
    const rules = parts.map((_, depth) => rulesFor(parts.slice(0, depth).join('/')))

    /** The verdict of the deepest .gitignore with an opinion on parts[0..end) (a directory when isDir). */
    const verdict = (end: number, isDir: boolean): boolean => {
      let ignored = false
      for (let depth = 0; depth < end; depth++) {
        const r = rules[depth]
        if (!r) continue
        const result = r.test(parts.slice(depth, end).join('/') + (isDir ? '/' : ''))
        if (result.ignored) ignored = true
        else if (result.unignored) ignored = false
      }
      return ignored
    }

    // Nothing under an ignored directory can be re-included.
    for (let end = 1; end < parts.length; end++) {
      if (verdict(end, true)) return true
    }
    const stat = fs.statSync(path.join(root, ...parts), { throwIfNoEntry: false })
    return verdict(parts.length, stat?.isDirectory() ?? false)
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
