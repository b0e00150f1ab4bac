import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import { CTIME_FIELDS, STAT_OK, statWithCtime } from './statFiles'

/*
 * Files under ignored folders (node_modules/, dist/, build output) are left out of snapshots: a
 * big node_modules would cost every checkpoint. But a command may change them — code appended to
 * node_modules/left-pad/index.js runs at the next `npm test` — and review must see that. So, at
 * the baseline, one stat-only walk records every file of the ignored folders (size, mtime, inode,
 * ctime: no file is read), and a later walk compares. ctime is in the key because a command can
 * put size and mtime back (`touch -r`) but not ctime. Cost: a readdir per folder and a stat per
 * file on helper threads (statFiles.ts), measured in bench/ignored.bench.ts against `git status
 * --ignored` on the same tree.
 */

export interface IgnoredChange {
  path: string
  status: 'added' | 'modified' | 'deleted'
  /** Bytes now (absent for a deleted file). */
  size?: number
  /** sha256 (hex) of the bytes now, for a present file of at most HASH_MAX_BYTES. */
  sha256?: string
}

/** A changed file up to this size is hashed (the walk itself reads nothing). */
export const HASH_MAX_BYTES = 16 * 1024 * 1024

export interface IgnoredFolders {
  /** The stat-only walk at the baseline; resolves to how many folders and files it recorded. */
  record(): Promise<{ folders: number; files: number }>
  /** Files added, changed or deleted under ignored folders since `record`, sorted by path. */
  changes(): Promise<IgnoredChange[]>
}

/** Folders never walked: git's own store (the git tools show it) — not the project's files. */
const NEVER = new Set(['.git'])

/**
 * `isIgnored(rel)` is the listing's rule (the sandbox's): true for a path the listing leaves out.
 * Each top ignored folder (one inside an unignored folder) is walked whole; links are not followed.
 */
export function createIgnoredFolders(root: string, isIgnored: (rel: string) => boolean): IgnoredFolders {
  let recorded: Map<string, Float64Array> | undefined

  async function snapshot(): Promise<{ folders: number; stats: Map<string, Float64Array> }> {
    const tops = await ignoredTops(root, isIgnored)
    const files = (await Promise.all(tops.map((t) => filesUnder(root, t)))).flat()
    const raw = await statWithCtime(root, files)
    const stats = new Map<string, Float64Array>()
    files.forEach((p, i) => stats.set(p, raw.subarray(i * CTIME_FIELDS, (i + 1) * CTIME_FIELDS)))
    return { folders: tops.length, stats }
  }

  return {
    async record() {
      const { folders, stats } = await snapshot()
      recorded = stats
      return { folders, files: stats.size }
    },
    async changes() {
      if (!recorded) return []
      const { stats } = await snapshot()
      const out: IgnoredChange[] = []
      for (const [p, now] of stats) {
        const was = recorded.get(p)
        if (now[0] !== STAT_OK) continue
        if (!was || was[0] !== STAT_OK) out.push({ path: p, status: 'added', size: now[1] })
        else if (!sameFile(was, now)) out.push({ path: p, status: 'modified', size: now[1] })
      }
      for (const p of recorded.keys()) if (!stats.has(p)) out.push({ path: p, status: 'deleted' })
      await Promise.all(out.map((c) => withHash(root, c)))
      return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    },
  }
}

async function withHash(root: string, change: IgnoredChange): Promise<void> {
  if (change.size === undefined || change.size > HASH_MAX_BYTES) return
  try {
    change.sha256 = createHash('sha256')
      .update(await fs.readFile(`${root}/${change.path}`))
      .digest('hex')
  } catch {
    // Gone again since the walk: its size from the walk only.
  }
}

/** Size, mtime, inode, mode and ctime (statWithCtime fields 1–5). */
function sameFile(a: Float64Array, b: Float64Array): boolean {
  return a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && a[4] === b[4] && a[5] === b[5]
}

/** Ignored folders whose parent is not ignored, root-relative. */
async function ignoredTops(root: string, isIgnored: (rel: string) => boolean): Promise<string[]> {
  const tops: string[] = []
  for (let level = [''], below: string[] = []; level.length > 0; level = below, below = []) {
    await Promise.all(
      level.map(async (dir) => {
        for (const e of await entries(root, dir)) {
          if (!e.isDirectory() || (dir === '' && NEVER.has(e.name))) continue
          const rel = dir === '' ? e.name : `${dir}/${e.name}`
          if (isIgnored(rel)) tops.push(rel)
          else below.push(rel)
        }
      }),
    )
  }
  return tops
}

/** Every regular file under `top` (links and special files left out), root-relative. */
async function filesUnder(root: string, top: string): Promise<string[]> {
  const files: string[] = []
  for (let level = [top], below: string[] = []; level.length > 0; level = below, below = []) {
    await Promise.all(
      level.map(async (dir) => {
        for (const e of await entries(root, dir)) {
          const rel = `${dir}/${e.name}`
          if (e.isDirectory()) below.push(rel)
          else if (e.isFile()) files.push(rel)
        }
      }),
    )
  }
  return files
}

async function entries(root: string, dir: string) {
  try {
    return await fs.readdir(dir === '' ? root : `${root}/${dir}`, { withFileTypes: true })
  } catch {
    return [] // vanished or unreadable
  }
}
