import fs from 'node:fs'
import path from 'node:path'
import { isInside } from '../containment/paths'

/*
 * Where the host git tools' repository really is. A `.git` file (`gitdir: …`), a `.git`
 * symlink or a `commondir` inside `.git` can hand git another repository's objects, refs and
 * index: the tools would show that repository's files and commit into it, outside the project.
 * Git's own layouts that live elsewhere are kept: a linked worktree (its git directory names
 * this `.git` back in its `gitdir` file) and a submodule opened on its own (its git directory's
 * `core.worktree` is this folder).
 */

/** The folder holding the repository's `.git` (file or folder), from `cwd` up. */
export function worktreeTop(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, '.git')) || isSymlink(path.join(dir, '.git'))) return dir
    if (path.dirname(dir) === dir) return undefined
  }
}

function isSymlink(p: string): boolean {
  return fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ?? false
}

function readOr(p: string): string | undefined {
  try {
    return fs.readFileSync(p, 'utf8')
  } catch {
    return undefined
  }
}

function real(p: string): string {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return path.resolve(p)
  }
}

/** `core.worktree` of a git directory's own config file, read as text (reading runs nothing). */
function coreWorktree(gitdir: string): string | undefined {
  const text = readOr(path.join(gitdir, 'config'))
  const core = text && /^\s*\[core\][^[]*/im.exec(text)?.[0]
  const m = core && /^\s*worktree\s*=\s*"?(.+?)"?\s*$/im.exec(core)
  return m ? m[1] : undefined
}

/** Why the repository at `cwd` is really another one outside the project, or undefined when it is not. */
export function foreignGitDir(cwd: string): string | undefined {
  const top = worktreeTop(cwd)
  if (!top) return undefined
  const realTop = real(top)
  const dotGit = path.join(top, '.git')
  const st = fs.lstatSync(dotGit, { throwIfNoEntry: false })
  if (!st) return undefined
  let gitdir = dotGit
  if (st.isFile() || st.isSymbolicLink()) {
    const m = st.isFile() ? /^gitdir:\s*(.+?)\s*$/m.exec(readOr(dotGit) ?? '') : null
    gitdir = m ? path.resolve(top, m[1]) : dotGit
    if (!isInside(realTop, real(gitdir))) {
      const back = readOr(path.join(gitdir, 'gitdir'))?.trim()
      const worktree = back !== undefined && real(path.resolve(gitdir, back)) === real(dotGit)
      const own = coreWorktree(gitdir)
      const submodule = own !== undefined && real(path.resolve(gitdir, own)) === realTop
      if (worktree || submodule) return undefined // git's own layout; its commondir is its main repository's
      return `the project's .git points at ${gitdir}, a git directory outside the project that is not one of its worktrees or submodules`
    }
  }
  const common = readOr(path.join(gitdir, 'commondir'))?.trim()
  if (common && !isInside(realTop, real(path.resolve(gitdir, common))))
    return `the project's git directory names ${path.resolve(gitdir, common)} (commondir), a repository outside the project`
  return undefined
}
