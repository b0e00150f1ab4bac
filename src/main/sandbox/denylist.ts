import ignore, { type Ignore } from 'ignore'

/**
 * Paths no tool may read, write, list or search (docs/sandbox.md#the-denylist), in gitignore syntax so a
 * pattern without a slash matches at any depth. `.git/` is reached through the git tools.
 */
export const DEFAULT_DENY: readonly string[] = [
  // A file in a git worktree or submodule, a folder elsewhere: both are denied.
  '.git',
  'node_modules/',
  'dist/',
  '.env',
  '.env.*',
  '*.pem',
  '*.key',
  'id_rsa*',
  '*.p12',
  '.npmrc',
  '.netrc',
]

export interface DenyList {
  /** The effective patterns, for ripgrep's `-g '!<pattern>'`. */
  readonly patterns: readonly string[]
  /** True when the root-relative POSIX path, or one of its parent directories, is denied. */
  isDenied(rel: string): boolean
  /** The pattern that denies `rel`, for an error message the model can act on. */
  reason(rel: string): string | undefined
}

/**
 * The default patterns plus `extraDeny`, minus any pattern listed in `allowDeny`
 * (a project that keeps its sources in `dist/` allows `dist/`).
 */
export function createDenyList(
  opts: { extraDeny?: readonly string[]; allowDeny?: readonly string[] } = {},
): DenyList {
  const allowed = new Set((opts.allowDeny ?? []).map((p) => p.trim()))
  const patterns = [...DEFAULT_DENY, ...(opts.extraDeny ?? [])]
    .map((p) => p.trim())
    .filter((p, i, all) => p !== '' && !p.startsWith('#') && !allowed.has(p) && all.indexOf(p) === i)
  const matcher: Ignore = ignore().add(patterns)

  const test = (rel: string) => {
    if (rel === '' || rel === '.') return undefined
    // A directory pattern (`.git/`) only matches a path known to be a directory, so
    // test the bare name as a directory too: `.git` itself is denied, not only its files.
    const asFile = matcher.test(rel)
    if (asFile.ignored) return asFile.rule?.pattern
    const asDir = matcher.test(rel + '/')
    return asDir.ignored ? asDir.rule?.pattern : undefined
  }

  return {
    patterns,
    isDenied: (rel) => test(rel) !== undefined,
    reason: test,
  }
}
