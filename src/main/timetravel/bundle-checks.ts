import type { StepwiseEvent } from '../../shared/protocol'
import { decodeFullManifest } from '../snapshot/manifest'
import type { SnapshotFile } from '../store/types'

/*
 * What an imported bundle must prove before it is written: manifests whose paths
 * stay inside the project (a restore writes them under the project root), and
 * events whose snapshot ids are all carried by the bundle.
 */

/** Why `p` is not a safe project-relative POSIX path, or undefined when it is. */
export function unsafePathReason(p: string): string | undefined {
  if (p === '') return 'is empty'
  if (p.includes('\0')) return 'holds a NUL byte'
  if (p.includes('\\')) return 'holds a backslash (a Windows separator)'
  if (p.startsWith('/')) return 'is absolute'
  if (/^[A-Za-z]:/.test(p)) return 'starts with a drive letter'
  // eslint-disable-next-line no-control-regex
  if (/[\x01-\x1f\x7f]/.test(p)) return 'holds a control character'
  for (const segment of p.split('/')) {
    if (segment === '..') return 'climbs out with ".."'
    if (segment === '' || segment === '.') return 'has an empty or "." segment'
    // Never captured by a snapshot; a restore writing into .git could plant hooks.
    if (segment.toLowerCase() === '.git') return 'reaches into .git'
  }
  return undefined
}

const HASH = /^[0-9a-f]{64}$/

/**
 * Decodes and checks a manifest from a bundle: every path safe and unique, in
 * order, every field well-formed. Throws an Error whose message says which entry.
 */
export function checkedManifest(data: Buffer): SnapshotFile[] {
  const files = decodeFullManifest(data)
  let previous: string | undefined
  for (const f of files) {
    const why = unsafePathReason(f.path)
    if (why) throw new UnsafePathError(`the path ${JSON.stringify(f.path)} ${why}`)
    if (
      !HASH.test(f.hash) ||
      !Number.isSafeInteger(f.size) ||
      f.size < 0 ||
      !Number.isInteger(f.mode) ||
      !Number.isFinite(f.mtimeMs)
    ) {
      throw new Error(`the entry for ${JSON.stringify(f.path)} is malformed`)
    }
    if (previous !== undefined && f.path <= previous)
      throw new Error(`its paths are not sorted and unique at ${JSON.stringify(f.path)}`)
    previous = f.path
  }
  return files
}

export class UnsafePathError extends Error {
  override name = 'UnsafePathError'
}

/** The snapshot ids an event refers to. */
export function snapshotIdsOf(e: StepwiseEvent): number[] {
  const ids: number[] = []
  mapSnapshotIds(e, (id) => {
    ids.push(id)
    return id
  })
  return ids
}

/**
 * The event with every snapshot id passed through `map` (in field order), or the event itself
 * when it holds none. Exhaustive on purpose: a new event type that holds a snapshot id must be
 * listed here.
 */
export function mapSnapshotIds(e: StepwiseEvent, map: (id: number) => number): StepwiseEvent {
  switch (e.type) {
    case 'session.started':
      return e.baselineSnapshotId === undefined ? e : { ...e, baselineSnapshotId: map(e.baselineSnapshotId) }
    case 'checkpoint.created':
      return { ...e, snapshotId: map(e.snapshotId) }
    case 'checkpoint.restored':
      return { ...e, snapshotId: map(e.snapshotId), savedSnapshotId: map(e.savedSnapshotId) }
    case 'user.message':
    case 'assistant.delta':
    case 'assistant.message':
    case 'model.retry':
    case 'toolcall.unparsed':
    case 'tool.started':
    case 'tool.output':
    case 'change.proposed':
    case 'approval.requested':
    case 'approval.resolved':
    case 'tool.finished':
    case 'session.forked':
    case 'session.configured':
    case 'context.compacted':
    case 'review.finding':
    case 'verify.finished':
    case 'error':
    case 'session.finished':
    case 'turn.started':
    case 'turn.finished':
      return e
    default: {
      const never: never = e
      throw new Error(`unknown event ${JSON.stringify(never)}`)
    }
  }
}
