import type { SnapshotFile } from '../store/types'

/**
 * A manifest is stored as a blob like any file, so an unchanged tree yields the
 * same bytes, the same hash and no new row. Format: a header line, then one
 * record per file, sorted by path, terminated by NUL (the one byte a path cannot
 * hold): `<hash> <size> <mode octal> <mtimeMs> <path>\0`.
 */
const HEADER = 'stepwise-manifest 1\n'

export function encodeManifest(files: readonly SnapshotFile[]): Buffer {
  const parts: string[] = [HEADER]
  for (const f of files) parts.push(`${f.hash} ${f.size} ${f.mode.toString(8)} ${f.mtimeMs} ${f.path}\0`)
  return Buffer.from(parts.join(''), 'utf8')
}

export function decodeManifest(data: Buffer): SnapshotFile[] {
  const text = data.toString('utf8')
  if (!text.startsWith(HEADER)) throw new Error('Not a Stepwise snapshot manifest (unknown header).')
  const files: SnapshotFile[] = []
  let at = HEADER.length
  while (at < text.length) {
    const end = text.indexOf('\0', at)
    if (end < 0) throw new Error('Truncated snapshot manifest.')
    const s1 = text.indexOf(' ', at)
    const s2 = text.indexOf(' ', s1 + 1)
    const s3 = text.indexOf(' ', s2 + 1)
    const s4 = text.indexOf(' ', s3 + 1)
    files.push({
      hash: text.slice(at, s1),
      size: Number(text.slice(s1 + 1, s2)),
      mode: parseInt(text.slice(s2 + 1, s3), 8),
      mtimeMs: Number(text.slice(s3 + 1, s4)),
      path: text.slice(s4 + 1, end),
    })
    at = end + 1
  }
  return files
}

export interface SnapshotChanges {
  added: string[]
  modified: string[]
  deleted: string[]
}

/** What changed from `before` to `after` (each list sorted, as `after` is). */
export function diffManifests(
  before: Map<string, SnapshotFile>,
  after: readonly SnapshotFile[],
): SnapshotChanges {
  const changed: SnapshotChanges = { added: [], modified: [], deleted: [] }
  const seen = new Set<string>()
  for (const f of after) {
    seen.add(f.path)
    const old = before.get(f.path)
    if (!old) changed.added.push(f.path)
    else if (old.hash !== f.hash || old.mode !== f.mode) changed.modified.push(f.path)
  }
  for (const path of before.keys()) if (!seen.has(path)) changed.deleted.push(path)
  changed.deleted.sort()
  return changed
}
