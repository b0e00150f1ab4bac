import os from 'node:os'
import { BROTLI_QUALITY, BROTLI_WINDOW_BITS, encodeBlob, RAW_BELOW_BYTES, sha256 } from './blobs'
import { helperThreads } from './helperThreads'
import { secretContentSource } from '../containment/secret-content'

/**
 * Reads, hashes and compresses many files at once on helper threads: the work of
 * a first snapshot of a big tree. Measured on 72,000 files / 700 MB of npm
 * packages with all of it but the compression on the session's thread, that
 * thread was busy 13.9 s of a 15 s baseline (reads 3.1 s, SQLite 2.9 s, garbage
 * collection 1.4 s, sha256 0.4 s) while the one compression helper idled. Here the
 * helpers read, hash and compress, and the caller only stores what comes back.
 *
 * A helper compresses a content once per capture: a content it has already sent
 * in the same capture comes back as `DUPLICATE`, with no bytes, for the caller to
 * find stored already (it stores answers in the order it sent the requests).
 */

/**
 * Per file: its content's hash and encoded bytes, or why it could not be read. `error` and
 * `data` tell the kinds apart (present or not), so a reader narrows without a copy or a check
 * of its own.
 */
export type FileRead =
  | { hash: string; size: number; encoding: number; data: Uint8Array; error?: undefined }
  | { hash: string; size: number; encoding: typeof DUPLICATE; data?: undefined; error?: undefined }
  | { error: string }

/** The read error of a file that is a secret by content (the gate's check): skipped, never stored. */
export const SECRET_SKIP = 'a secret by its content'

/** `encoding` of a content this capture's helper already sent. */
export const DUPLICATE = -1

/**
 * The helpers' code, evaluated from a string so it needs no file of its own beside
 * whatever bundle this module ends up in. It reads, hashes and encodes as
 * `localRead` below does (sha256 and encodeBlob); readThreads.test.ts holds the
 * two to the same answers.
 */
const WORKER_SOURCE = `
${secretContentSource()}
const SECRET_SKIP = ${JSON.stringify(SECRET_SKIP)}
const { parentPort } = require('node:worker_threads')
const { closeSync, constants, fstatSync, openSync, readFileSync, readSync } = require('node:fs')
const { createHash } = require('node:crypto')
const zlib = require('node:zlib')
let capture
let seen = new Set()
// Files up to SCRATCH_MAX are read into one buffer kept for the next: a fresh buffer per
// file left up to ~60 MB of read garbage outside this thread's heap before its collector ran.
const SCRATCH_MAX = 8 * 1024 * 1024
let scratch = Buffer.allocUnsafeSlow(256 * 1024)
const readWhole = (fd, size) => {
  if (size > SCRATCH_MAX) return readFileSync(fd)
  let n = 0
  for (;;) {
    if (n === scratch.length) {
      // A file still growing as it is read: the rest as node reads it.
      if (n >= 2 * SCRATCH_MAX) return Buffer.concat([scratch.subarray(0, n), readFileSync(fd)])
      const bigger = Buffer.allocUnsafeSlow(scratch.length * 2)
      scratch.copy(bigger, 0, 0, n)
      scratch = bigger
    }
    const got = readSync(fd, scratch, n, scratch.length - n, null)
    if (got === 0) return scratch.subarray(0, n)
    n += got
  }
}
parentPort.on('message', ({ id, root, paths, token, quality, windowBits, rawBelow }) => {
  if (token !== capture) {
    capture = token
    seen = new Set()
  }
  const out = []
  const transfer = []
  for (const p of paths) {
    let raw
    let fd
    try {
      // Never blocks: a file swapped for a FIFO since its stat is refused, not waited on;
      // never follows a link swapped in since the listing (the gate's rule: ELOOP).
      fd = openSync(root + '/' + p, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
      const st = fstatSync(fd)
      if (!st.isFile()) throw Object.assign(new Error(), { code: 'not a regular file' })
      raw = readWhole(fd, st.size)
      // A secret by content (the gate's check) is never stored.
      if (secretContentKind(raw)) throw Object.assign(new Error(), { code: SECRET_SKIP })
    } catch (err) {
      out.push({ error: err.code || 'read failed' })
      continue
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
    const hash = createHash('sha256').update(raw).digest('hex')
    if (seen.has(hash)) {
      out.push({ hash, size: raw.length, encoding: -1 })
      continue
    }
    seen.add(hash)
    let data = raw
    let encoding = 0
    if (raw.length >= rawBelow) {
      const packed = zlib.brotliCompressSync(raw, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
          [zlib.constants.BROTLI_PARAM_LGWIN]: windowBits,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
        },
      })
      if (packed.length < raw.length) {
        data = packed
        encoding = 2
      }
    }
    const bytes = new Uint8Array(data.length)
    bytes.set(data)
    transfer.push(bytes.buffer)
    out.push({ hash, size: raw.length, encoding, data: bytes })
  }
  // Only small files' buffer stays between messages; a big one is left to the collector.
  if (scratch.length > 1024 * 1024) scratch = Buffer.allocUnsafeSlow(256 * 1024)
  parentPort.postMessage({ id, out }, transfer)
})
`

/**
 * Two helpers: on two cores the caller's thread mostly waits on them, then stores. Shared by the
 * captures reading at a time, and ended when the last of them is done: idle, they kept their heaps
 * through the rest of a session (first sessions on the 85,000-file bench tree peaked at 419–458 MB
 * with them ended, 452–468 without).
 */
export const readHelpers = helperThreads<FileRead[]>(WORKER_SOURCE, () =>
  Math.max(1, Math.min(3, os.availableParallelism())),
)

let captures = 0
/** Captures that have not said they are done. */
let reading = 0

/** One capture's reads: contents are compressed once per capture on each helper. */
export function createThreadedReads(root: string): {
  /** Reads `paths` (root-relative); undefined when the helpers cannot, so the caller reads them itself. */
  read(paths: readonly string[]): Promise<FileRead[] | undefined>
  /** This capture reads no more (call it once, failed or not): the last one done ends the helpers. */
  done(): void
} {
  const token = ++captures
  reading++
  let open = true
  return {
    done() {
      if (!open) return
      open = false
      if (--reading === 0) void readHelpers.stop()
    },
    async read(paths) {
      const pool = readHelpers.get()
      if (!pool) return undefined
      // Each helper takes every n-th file (not a block): big and small files spread evenly.
      const parts = pool.map((h, k) => {
        const mine = paths.filter((_, i) => i % pool.length === k)
        const message = {
          root,
          paths: mine,
          token,
          quality: BROTLI_QUALITY,
          windowBits: BROTLI_WINDOW_BITS,
          rawBelow: RAW_BELOW_BYTES,
        }
        return readHelpers.runOn(h, message)
      })
      const answers = await Promise.all(parts)
      if (answers.some((a) => a === undefined)) return undefined
      const out = new Array<FileRead>(paths.length)
      answers.forEach((a, k) => a!.forEach((r, j) => (out[j * pool.length + k] = r)))
      return out
    },
  }
}

/**
 * Frees the bytes of answers once stored. They came from the helpers as transferred buffers, and
 * V8 frees such a buffer at its owner's collection: a buffer that lived through a slice's read and
 * store is old by then, and the session's thread collects its old generation only once ~64 MB of
 * them has piled up (a first baseline of the bench tree held ~40 MB of stored answers at its peak).
 * Transferred away here, each is a new, unreachable buffer, freed by the next young collection.
 */
export function releaseReads(reads: readonly FileRead[]): void {
  const buffers = new Set<ArrayBuffer>()
  for (const r of reads) {
    const buffer = r.error === undefined ? r.data?.buffer : undefined
    if (buffer instanceof ArrayBuffer && buffer.byteLength > 0) buffers.add(buffer)
  }
  if (buffers.size > 0) structuredClone(undefined, { transfer: [...buffers] })
}

/** What a helper answers for one file, done on this thread (tests hold the helpers to it). */
export function localRead(raw: Buffer): FileRead {
  const { encoding, data } = encodeBlob(raw)
  return { hash: sha256(raw), size: raw.length, encoding, data }
}
