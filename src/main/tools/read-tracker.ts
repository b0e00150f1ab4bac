import type { FileFingerprint, ReadTracker } from './types'

/** What the model has read in this session, by root-relative path. */
export function createReadTracker(): ReadTracker {
  const reads = new Map<string, FileFingerprint>()
  return {
    recordRead: (path, fingerprint) => void reads.set(path, fingerprint),
    lastRead: (path) => reads.get(path),
    forget: (path) => void reads.delete(path),
  }
}
