import fs from 'node:fs'

/** Copies a file and has its bytes on disk before returning: a rename after it never names a hole. */
export function copyFileDurably(from: string, to: string): void {
  fs.copyFileSync(from, to)
  const fd = fs.openSync(to, 'r+')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}
