import fs from 'node:fs/promises'
import { childOf, onDisk } from '../containment/paths'

/**
 * Every directory under `root` that `isIgnored` does not exclude, as root-relative
 * POSIX paths ('' for the root itself), in no particular order. A directory
 * inside an ignored one is never visited.
 *
 * This is what a snapshotter needs to reuse a file listing (`listDirectories` in
 * SnapshotterOptions): the listing can only change when one of these directories
 * does, including those that hold no listed file (empty, or whose files are all
 * ignored), which is why they come from a walk and not from the listed paths.
 * `isIgnored` must exclude exactly the directories the listing skips; one it
 * wrongly excludes would hide files created there, one it wrongly keeps only costs
 * a stat per snapshot. It is only asked about directories; in the app:
 * `(rel) => sandbox.isIgnored(rel, true)`.
 *
 * Symbolic links are not followed, like ripgrep's listing.
 */
export async function listUnignoredDirectories(
  root: string,
  isIgnored: (rel: string) => boolean,
): Promise<string[]> {
  const found: string[] = ['']
  // Level by level: a level's reads all go to the thread pool at once.
  for (let level = [''], below: string[] = []; level.length > 0; level = below, below = []) {
    await Promise.all(
      level.map(async (dir) => {
        let entries
        try {
          entries = await fs.readdir(onDisk(root, dir), { withFileTypes: true })
        } catch {
          return // vanished or unreadable: the listing cannot see into it either
        }
        for (const entry of entries) {
          if (!entry.isDirectory()) continue
          const rel = childOf(dir, entry.name)
          if (isIgnored(rel)) continue
          below.push(rel)
          found.push(rel)
        }
      }),
    )
  }
  return found
}
