import fs from 'node:fs'
import path from 'node:path'
import { openSafeGit } from '../git/git-safe'
import { normalise, options } from './options'
import { GIT_SUBCOMMANDS, type GitCall } from './programs/git'
import { isSecretName } from '../containment/denylist'
import { SECRET_TEMPLATE } from '../sandboxing/git-history'

/*
 * The sandbox masks secret files in the work tree, not the objects in `.git`:
 * when HEAD tracks a `.env`, `git grep KEY HEAD`, `git show`, `git diff` (the
 * index against the masked, empty file) or `git cat-file` print it without naming
 * it. So while HEAD tracks a secrets file, git commands that print file content
 * from the object store are refused, naming the file and the cure. Secrets only
 * in older history are out of reach of this check (docs/commands.md).
 */

/** A listing of HEAD that takes longer is given up: the check then knows of no tracked secret. */
const MAX_LISTING_MS = 5_000

const cache = new Map<string, { head: string; secrets: string[] }>()

/** The tracked secrets files of HEAD (root-relative), [] outside a repository; cached per HEAD commit. */
export async function trackedSecrets(root: string): Promise<string[]> {
  try {
    const git = await openSafeGit(root, { timeoutMs: MAX_LISTING_MS })
    const head = (await git.raw(['rev-parse', '--verify', '--quiet', 'HEAD'])).trim()
    if (head === '') return []
    const known = cache.get(root)
    if (known?.head === head) return known.secrets
    const listing = await git.raw(['ls-tree', '-r', '--name-only', '-z', '--full-tree', 'HEAD'])
    const secrets = listing.split('\0').filter((f) => {
      const base = path.posix.basename(f)
      return f !== '' && isSecretName(base) && !SECRET_TEMPLATE.test(base)
    })
    if (cache.size > 16) cache.clear()
    cache.set(root, { head, secrets })
    return secrets
  } catch {
    // Not a repository, no commit yet, or too big to list in time: nothing known to refuse.
    return []
  }
}

/** Options after which git prints no file content (names, counts, messages). */
const NO_CONTENT = new Set([
  '--stat',
  '--shortstat',
  '--numstat',
  '--dirstat',
  '--summary',
  '--name-only',
  '--name-status',
  '--no-patch',
  '-s',
  '--raw',
  '--quiet',
  '--exit-code',
  '-q',
])
/** Options that print content (patches) even where the default does not. */
const PATCH = new Set([
  '--patch',
  '-p',
  '-u',
  '-U',
  '--unified',
  '-L',
  '--word-diff',
  '--color-words',
  '-W',
  '--function-context',
  '--cc',
  '--patch-with-stat',
  '--patch-with-raw',
])

/** Subcommands that print or export blobs whatever their options. */
const ALWAYS = new Set([
  'cat-file',
  'archive',
  'bundle',
  'format-patch',
  'blame',
  'annotate',
  'fast-export',
  'unpack-file',
  'range-diff',
  'merge-tree',
  'checkout-index',
  'worktree',
])

/** Subcommands that print patches by default (`git show`), or only when asked (`git log -p`). */
const PATCH_BY_DEFAULT = new Set(['show', 'diff', 'diff-tree', 'diff-index', 'diff-files'])
const PATCH_WHEN_ASKED = new Set(['log', 'whatchanged', 'reflog'])

const FALLBACK = options({ long: 'patch unified= stat=?', short: 'p u U= s' })
const GREP_TABLE = GIT_SUBCOMMANDS.grep.table

/**
 * Why `git` reads file content out of the object store, or null. `exists` tells a
 * path operand from a revision (`git grep x src` reads the work tree, `git grep x
 * HEAD` the commit).
 */
export function readsGitObjects(call: GitCall, exists: (operand: string) => boolean): string | null {
  const { subcommand: sub, args } = call
  if (call.globals.some((g) => /^--(work-tree|git-dir)/.test(g))) return 'points git at another work tree'
  if (ALWAYS.has(sub)) return `\`git ${sub}\` prints files from the repository`
  if (sub === 'stash') return args[0] === 'show' ? '`git stash show` prints stashed files' : null
  if (sub === 'grep') {
    const parsed = normalise(args, GREP_TABLE)
    if (parsed.options.some((o) => o.names.includes('--cached')))
      return '`git grep --cached` searches the index'
    if (parsed.options.some((o) => o.names.includes('--no-index') || o.names.includes('--untracked')))
      return null
    const dashdash = args.indexOf('--')
    const hasPattern = parsed.options.some((o) => o.names.includes('-e') || o.names.includes('-f'))
    const operands = parsed.operands.slice(hasPattern ? 0 : 1)
    const trees = dashdash < 0 ? operands : operands.filter((o) => args.indexOf(o) < dashdash)
    const rev = trees.find((o) => !exists(o))
    return rev ? `\`git grep\` searches \`${rev}\` in the repository` : null
  }
  if (!PATCH_BY_DEFAULT.has(sub) && !PATCH_WHEN_ASKED.has(sub)) return null
  // Two files compared outright: the secrets rule sees their names.
  if (sub === 'diff' && args.includes('--no-index')) return null
  const table = GIT_SUBCOMMANDS[sub]?.table ?? GIT_SUBCOMMANDS.diff.table ?? FALLBACK
  const names = normalise(args, table).options.flatMap((o) => o.names)
  const patch = names.some((n) => PATCH.has(n))
  const quiet = names.some((n) => NO_CONTENT.has(n))
  if (patch || (PATCH_BY_DEFAULT.has(sub) && !quiet))
    return `\`git ${sub}\` prints file content from the repository`
  return null
}

/** Operands that exist in the work tree (paths), as opposed to revisions. */
export function pathExists(root: string): (operand: string) => boolean {
  return (operand) => {
    try {
      return fs.existsSync(path.resolve(root, operand))
    } catch {
      return false
    }
  }
}

/** The refusal: which tracked file, and what to do. */
export function historyRefusal(why: string, tracked: readonly string[]): string {
  const files = tracked.slice(0, 3).map((f) => `\`${f}\``)
  const more = tracked.length > 3 ? ` and ${tracked.length - 3} more` : ''
  const first = tracked[0]
  return (
    `${why}, and HEAD tracks the secrets file ${files.join(', ')}${more}, which would come out with it. ` +
    'Use the git_diff / git_show / git_log tools (they leave secrets files out), or name the paths to look at ' +
    `after \`--\` (\`git log -p -- src\`); to lift this for good, untrack the file (\`git rm --cached ${first}\`, ` +
    'add it to .gitignore, commit) and rotate the secret'
  )
}

/**
 * Pathspecs after `--` that cannot reach a tracked secret let a patch through
 * (`git log -p -- src`); a glob or magic pathspec is not read and counts as reaching.
 */
export function pathspecsAvoid(args: readonly string[], tracked: readonly string[]): boolean {
  const dashdash = args.indexOf('--')
  if (dashdash < 0) return false
  const specs = args.slice(dashdash + 1)
  if (specs.length === 0 || specs.some((s) => /[*?[:\\]/.test(s) || s.startsWith('.'))) return false
  const norm = specs.map((s) => path.posix.normalize(s).replace(/\/+$/, ''))
  // Pathspecs are relative to where git runs, which may be a subfolder: match them anywhere.
  const reaches = (f: string, s: string) =>
    f === s || f.startsWith(`${s}/`) || f.endsWith(`/${s}`) || f.includes(`/${s}/`)
  return !tracked.some((f) => norm.some((s) => reaches(f, s)))
}
