import fs from 'node:fs'

/**
 * Copies a file (off this thread) and has its bytes on disk before resolving: a rename after it
 * never names a file the disk holds only part of.
 */
export async function copyFileDurably(from: string, to: string): Promise<void> {
  await fs.promises.copyFile(from, to)
  const file = await fs.promises.open(to, 'r+')
  try {
    await file.sync()
  } finally {
    await file.close()
  }
}

/** `copyFileDurably` on this thread, for a caller that must not yield (a move under an exclusive lock). */
export function copyFileDurablySync(from: string, to: string): void {
  fs.copyFileSync(from, to)
  const fd = fs.openSync(to, 'r+')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}
