import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import fs from 'node:fs/promises'
import { errnoCode } from '../../shared/errors'

/** What a file was when the model last read it: a change since means the model's copy is stale. */
export interface FileFingerprint {
  size: number
  mtimeMs: number
  sha256: string
}

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

/**
 * The file's content and its fingerprint, taken from one open file descriptor so
 * the fingerprint describes exactly the bytes returned. Null when the file does
 * not exist.
 */
export async function readWithFingerprint(
  abs: string,
): Promise<{ data: Buffer; fingerprint: FileFingerprint } | null> {
  let handle: fs.FileHandle
  try {
    // Non-blocking: a FIFO a command left in the file's place must not hold the host's read forever.
    // No following: `abs` is the real path the gate resolved; a link swapped in since is refused (ELOOP).
    handle = await fs.open(
      abs,
      constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0),
    )
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return null
    throw err
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile())
      throw Object.assign(new Error(`${abs} is not a regular file`), {
        code: stat.isDirectory() ? 'EISDIR' : 'not a regular file',
      })
    const data = await handle.readFile()
    return { data, fingerprint: { size: data.length, mtimeMs: stat.mtimeMs, sha256: sha256Hex(data) } }
  } finally {
    await handle.close()
  }
}

/** The fingerprint of the file on disk now, or null when it does not exist. */
export async function fingerprintFile(abs: string): Promise<FileFingerprint | null> {
  return (await readWithFingerprint(abs))?.fingerprint ?? null
}

/**
 * Same content? Size and hash decide; mtime alone does not, so a `touch` or a
 * checkout that rewrites identical bytes is not reported as a change.
 */
export function sameContent(a: FileFingerprint, b: FileFingerprint): boolean {
  return a.size === b.size && a.sha256 === b.sha256
}
