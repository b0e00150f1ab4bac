import fs from 'node:fs'
import path from 'node:path'
import { errorMessage } from '../../shared/errors'
import { createSandbox } from '../containment/sandbox'
import { createBlobStore } from '../snapshot/blobs'
import { openSafeGit, type SafeGit } from '../git/git-safe'
import type { Snapshotter } from '../snapshot/snapshotter'
import type { Store } from '../store/types'
import { applyPlan, checkRelative, verifyBlobs, type RestorePlan } from './restore-apply'
import { snapshotTablesOf } from '../store/snapshot-tables'

/**
 * A fork's files in a git worktree: `git worktree add --detach DIR HEAD`, then the
 * snapshot written over it, so the project at step N sits next to the present
 * without touching it. A project in a subfolder of its repository lands in the
 * same subfolder of the worktree.
 */

export class WorktreeError extends Error {
  override name = 'WorktreeError'
}

/**
 * Where a fork's worktree goes when the user names no folder: next to the repository,
 * `<repo>-fork-1`, `-2`… — the first that does not exist yet.
 */
export function defaultWorktreeDir(toplevel: string): string {
  for (let i = 1; ; i++) {
    const dir = `${toplevel}-fork-${i}`
    if (!fs.existsSync(dir)) return dir
  }
}

/** Adds the worktree (at `dir`, else defaultWorktreeDir) and returns the project's folder inside it. */
export async function addWorktree(projectRoot: string, dir?: string): Promise<string> {
  let toplevel: string
  let git: SafeGit
  try {
    // The checkout would run post-checkout hooks and smudge filters: the hardened client runs neither.
    git = await openSafeGit(projectRoot, { timeoutMs: 120_000 })
    toplevel = fs.realpathSync((await git.raw(['rev-parse', '--show-toplevel'])).trim())
    await git.raw(['rev-parse', '--verify', 'HEAD'])
  } catch {
    throw new WorktreeError(
      `a fork into a git worktree needs a git repository with at least one commit, and ${projectRoot} is not one. Fork in place instead.`,
    )
  }
  const target = path.resolve(dir ?? defaultWorktreeDir(toplevel))
  if (fs.existsSync(target) && fs.readdirSync(target).length > 0)
    throw new WorktreeError(
      `${target} already exists and is not empty: choose a new folder for the worktree.`,
    )
  try {
    await git.raw(['worktree', 'add', '--detach', target, 'HEAD'])
  } catch (err) {
    throw new WorktreeError(`git worktree add failed: ${errorMessage(err).trim()}`)
  }
  const rel = path.relative(toplevel, projectRoot)
  const root = path.join(fs.realpathSync(target), rel)
  fs.mkdirSync(root, { recursive: true })
  return root
}

/**
 * Makes `root` hold exactly the snapshot's files, as the snapshotter sees a tree:
 * every file of the manifest written (with its mode), every other listed file
 * (tracked at HEAD, not ignored, not denied) deleted. Denied and ignored files are
 * left alone, as a snapshot never held them. Returns the paths written or deleted.
 */
export async function writeSnapshotInto(
  store: Store,
  snapshotter: Snapshotter,
  snapshotId: number,
  root: string,
): Promise<string[]> {
  const manifest = snapshotter.getManifest(snapshotId)
  const wanted = new Set(manifest.map((f) => f.path))
  const listed = (await (await createSandbox(root)).listFiles()).files
  const plan: RestorePlan = {
    write: manifest.map((f) => ({ path: f.path, hash: f.hash, mode: f.mode })),
    // A worktree's `.git` is a file the sandbox listing does not deny (only the folder): never delete it.
    delete: listed.filter((p) => !wanted.has(p) && p.split('/')[0] !== '.git'),
  }
  for (const p of [...plan.write.map((w) => w.path), ...plan.delete]) checkRelative(p)
  // Every blob is read and verified before the first write: a corrupt snapshot touches nothing.
  const content = verifyBlobs(createBlobStore(snapshotTablesOf(store).blobs), plan)
  applyPlan(root, plan, content)
  return [...plan.write.map((w) => w.path), ...plan.delete].sort()
}
