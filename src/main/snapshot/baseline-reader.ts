/* The session's baseline snapshot as the tools read it (kept here, below the tools, so the snapshot folder needs nothing from them). */

/** The session's baseline: the snapshot taken when the session started (review tools). */
export interface BaselineReader {
  info(): { snapshotId: number; createdAt: number; fileCount: number; totalBytes: number }
  /** Paths in the baseline, with their content hash and size. */
  files(): Map<string, { hash: string; size: number }>
  /** The file's text as it was at the baseline, or null when it did not exist then. */
  readOriginal(path: string): Buffer | null
}
