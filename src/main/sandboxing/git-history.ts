import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { openSafeGit } from '../git/git-safe'
import { isSecretName } from '../containment/denylist'
import { loadHistoryVerdict, saveHistoryVerdict } from '../containment/secrets-scan-state'

/** Templates committed on purpose; they hold no secret (the command policy's check of HEAD skips them too). */
export const SECRET_TEMPLATE = /^\.env\.(example|sample|template|dist|defaults?)$/

/*
 * Secrets in older history (docs/sandbox.md#secrets-in-git-history): a test script can print
 * `git show HEAD~1:.env` in any encoding it likes (hex, reversed, base64), which no
 * redaction can follow. So the object store of a repository whose history, reflogs, stash
 * or index name a secrets file is hidden from sandboxed commands (an empty folder over
 * `objects`); git reads then go through the git tools, whose host-side client leaves
 * secrets files out.
 */

/** A repository's own git folder and the folder holding its objects (a worktree's `commondir`). */
export function repoDirs(gitPath: string): { gitDir: string; commonDir: string } | undefined {
  try {
    const st = fs.lstatSync(gitPath)
    if (st.isDirectory()) return { gitDir: gitPath, commonDir: gitPath }
    if (!st.isFile()) return undefined
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(gitPath, 'utf8'))
    if (!m) return undefined
    const gitDir = path.resolve(path.dirname(gitPath), m[1])
    if (!fs.statSync(gitDir).isDirectory()) return undefined
    let commonDir = gitDir
    try {
      commonDir = path.resolve(gitDir, fs.readFileSync(path.join(gitDir, 'commondir'), 'utf8').trim())
    } catch {
      // a submodule's gitdir has no commondir: its objects are its own
    }
    return { gitDir, commonDir }
  } catch {
    return undefined
  }
}

export interface HiddenHistory {
  /** The objects folder to hide. */
  objects: string
  /** The secrets files its history names (root-relative to that repository), or [] when unchecked. */
  files: string[]
  /** Why, for the command's notes. */
  why: string
}

/** A verdict as an earlier process saved it (containment/secrets-scan-state.ts). */
const hiddenHistorySchema: z.ZodType<HiddenHistory> = z.object({
  objects: z.string(),
  files: z.array(z.string()),
  why: z.string(),
})

/** A history listing that takes longer is given up, and the objects are hidden unchecked. */
export const MAX_HISTORY_MS = 20_000

const historyCache = new Map<string, { fingerprint: string; hidden: HiddenHistory | null }>()

/**
 * The objects folders to hide, one per repository (`.git` met by the walk) whose reachable
 * history, reflogs, stash or index hold a secrets file; checked again when its refs, reflog or
 * index change. A repository that cannot be listed in time is hidden too (never fail open).
 */
export async function historiesWithSecrets(
  gitPaths: readonly string[],
  timeoutMs = MAX_HISTORY_MS,
): Promise<HiddenHistory[]> {
  const out: HiddenHistory[] = []
  for (const gitPath of gitPaths) {
    const dirs = repoDirs(gitPath)
    if (!dirs) continue
    const fingerprint = refsFingerprint(dirs)
    const known = historyCache.get(gitPath)
    let hidden = known?.fingerprint === fingerprint ? known.hidden : undefined
    // An earlier process's verdict under the same fingerprint (secrets-scan-state.ts).
    if (hidden === undefined) hidden = savedVerdict(gitPath, fingerprint)
    if (hidden === undefined) {
      hidden = await checkHistory(path.dirname(gitPath), dirs, timeoutMs)
      // A history that could not be listed in time is checked again next time, not remembered.
      if (!hidden || hidden.files.length > 0) saveHistoryVerdict(gitPath, fingerprint, hidden)
    }
    if (historyCache.size > 64) historyCache.clear()
    historyCache.set(gitPath, { fingerprint, hidden })
    if (hidden && !out.some((h) => h.objects === hidden.objects)) out.push(hidden)
  }
  return out
}

async function checkHistory(
  workTree: string,
  dirs: { gitDir: string; commonDir: string },
  timeoutMs: number,
): Promise<HiddenHistory | null> {
  const objects = path.join(dirs.commonDir, 'objects')
  if (!fs.existsSync(objects)) return null
  let listing: string
  try {
    const git = await openSafeGit(workTree, { timeoutMs })
    // Every object reachable from a ref, a reflog entry (an amended or reset commit) or the index,
    // with the path it was reached by.
    listing = await git.raw(['rev-list', '--objects', '--all', '--reflog', '--indexed-objects'])
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err)
    return { objects, files: [], why: `its history could not be checked for secrets files (${why})` }
  }
  const files = new Set<string>()
  for (const line of listing.split('\n')) {
    const space = line.indexOf(' ')
    if (space < 0) continue
    const file = line.slice(space + 1)
    const base = path.posix.basename(file)
    if (isSecretName(base) && !SECRET_TEMPLATE.test(base.toLowerCase())) files.add(file)
  }
  if (files.size === 0) return null
  const names = [...files].slice(0, 3).map((f) => `\`${f}\``)
  const more = files.size > 3 ? ` and ${files.size - 3} more` : ''
  return { objects, files: [...files], why: `its history holds the secrets file ${names.join(', ')}${more}` }
}

function savedVerdict(gitPath: string, fingerprint: string): HiddenHistory | null | undefined {
  return loadHistoryVerdict(gitPath, fingerprint, hiddenHistorySchema.nullable())?.hidden
}

/** Stats of what changes when refs, reflogs, the stash or the index do: no git process needed. */
function refsFingerprint(dirs: { gitDir: string; commonDir: string }): string {
  const parts: string[] = []
  const add = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false })
    parts.push(st ? `${p}:${st.mtimeMs}:${st.size}` : `${p}:-`)
    return st
  }
  for (const f of ['HEAD', 'index', 'logs/HEAD']) add(path.join(dirs.gitDir, f))
  add(path.join(dirs.commonDir, 'packed-refs'))
  // Refs are written by renaming a lock file into their folder, which changes its mtime.
  const queue = [path.join(dirs.commonDir, 'refs'), path.join(dirs.commonDir, 'logs', 'refs')]
  for (let i = 0; i < queue.length && i < 2_000; i++) {
    if (!add(queue[i])?.isDirectory()) continue
    try {
      for (const e of fs.readdirSync(queue[i], { withFileTypes: true }))
        if (e.isDirectory()) queue.push(path.join(queue[i], e.name))
        else if (queue[i].includes(`${path.sep}logs${path.sep}`)) add(path.join(queue[i], e.name))
    } catch {
      // unreadable: its stat above stands for it
    }
  }
  return parts.join('\n')
}
