import os from 'node:os'
import type { SqliteDatabase } from '../store/sqlite'
import { BROTLI_QUALITY, encodeBlob, RAW_BELOW_BYTES, type BlobStore } from './blobs'
import { helperThreads } from './helperThreads'

/**
 * Stores many new blobs at once with their compression on worker threads. A first
 * snapshot of a big tree is mostly compression (measured on 70,000 files / 310 MB
 * of npm packages: reading 25–30 %, sha256 5 %, brotli 45–50 %, SQLite 15 %), and
 * it all ran on the one thread that also runs the session. Here the caller reads
 * and hashes, batches of files go to the helpers to be compressed, and their rows
 * are written as the answers come back.
 *
 * Nothing names a blob before it is stored: the caller drains the writer before
 * it writes the snapshot row (and the stat-cache rows) that name its blobs, so a
 * crash in between leaves only unnamed blobs, which the next snapshot reuses.
 */

export interface BlobWriter {
  /**
   * Stores `raw` under `hash` unless it is stored or on its way already. `raw` is
   * the writer's from then on: its memory may move to a helper thread (read it no more).
   */
  add(hash: string, raw: Buffer): void
  /** Resolves when the bytes in flight are back under the limit: call between batches of `add`. */
  room(): Promise<void>
  /** Resolves when every blob added is stored; rejects if one could not be. */
  drain(): Promise<void>
}

/** Files per message to a helper: one message per small file would cost more than its compression. */
const BATCH_BYTES = 1024 * 1024
const BATCH_FILES = 512
/** Raw bytes sent and not yet stored, beyond which the caller waits (`room`). */
const MAX_IN_FLIGHT = 64 * 1024 * 1024

/**
 * The helpers' code, evaluated from a string so it needs no file of its own beside
 * whatever bundle this module ends up in. It does what `encodeBlob` does;
 * blobWriter.test.ts holds the two to the same bytes.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const zlib = require('node:zlib')
parentPort.on('message', ({ id, raws, quality, rawBelow }) => {
  const transfer = new Set()
  const out = raws.map((raw) => {
    raw = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
    let data = raw
    let encoding = 0
    if (raw.length >= rawBelow) {
      const packed = zlib.brotliCompressSync(raw, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
      })
      if (packed.length < raw.length) {
        data = packed
        encoding = 2
      }
    }
    if (data.byteOffset === 0 && data.buffer.byteLength === data.length) transfer.add(data.buffer)
    return { encoding, data }
  })
  parentPort.postMessage({ id, out }, [...transfer])
})
`

type Encoded = { encoding: number; data: Uint8Array }
type Item = { hash: string; size: number; raw: Buffer }

// One thread is the caller's (reading and hashing); on two cores that leaves one helper.
const helpers = helperThreads<Encoded[]>(WORKER_SOURCE, () =>
  Math.max(1, Math.min(3, os.availableParallelism() - 1)),
)

/** The memory that can move to a helper rather than be copied: a buffer that is all of its ArrayBuffer. */
function movable(items: readonly Item[]): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>()
  for (const { raw } of items)
    if (raw.byteOffset === 0 && raw.buffer.byteLength === raw.length && raw.buffer instanceof ArrayBuffer)
      out.add(raw.buffer)
  return [...out]
}

/** Compresses the items' bytes on the least busy helper; undefined when the helpers cannot. */
function compressOnHelper(items: readonly Item[]): Promise<Encoded[] | undefined> {
  const raws = items.map((it) => it.raw)
  return helpers.run({ raws, quality: BROTLI_QUALITY, rawBelow: RAW_BELOW_BYTES }, movable(items))
}

export function createBlobWriter(db: SqliteDatabase, blobs: BlobStore): BlobWriter {
  const insert = db.prepare<[string, number, number, Buffer]>(
    'INSERT OR IGNORE INTO blobs (hash, size, encoding, data) VALUES (?, ?, ?, ?)',
  )
  const pending = new Set<string>()
  let batch: Item[] = []
  let batchBytes = 0
  let inFlight = 0
  const sent = new Set<Promise<void>>()
  let failure: unknown
  let waiters: Array<() => void> = []

  const store = db.transaction((items: readonly Item[], out: Encoded[]) => {
    items.forEach((it, i) => {
      const { encoding, data } = out[i]
      // A helper's answer arrives as a plain Uint8Array; SQLite binds Buffers.
      insert.run(it.hash, it.size, encoding, Buffer.from(data.buffer, data.byteOffset, data.byteLength))
    })
  })

  function send(): void {
    if (batch.length === 0) return
    const items = batch
    const bytes = batchBytes
    batch = []
    batchBytes = 0
    inFlight += bytes
    const p = compressOnHelper(items)
      .then((out) => {
        // Without helpers, the same encoding here; bytes already handed to a helper that
        // then died are gone from this thread: fail the snapshot rather than store less.
        if (!out && items.some((it) => it.raw.length !== it.size))
          throw new Error('A snapshot compression thread stopped; take the snapshot again.')
        store(items, out ?? items.map((it) => encodeBlob(it.raw)))
      })
      .catch((err: unknown) => {
        failure ??= err
      })
      .finally(() => {
        for (const it of items) pending.delete(it.hash)
        inFlight -= bytes
        sent.delete(p)
        const ready = waiters
        waiters = []
        for (const w of ready) w()
      })
    sent.add(p)
  }

  return {
    add(hash, raw) {
      if (pending.has(hash) || blobs.has(hash)) return
      pending.add(hash)
      batch.push({ hash, size: raw.length, raw })
      batchBytes += raw.length
      if (batchBytes >= BATCH_BYTES || batch.length >= BATCH_FILES) send()
    },

    async room() {
      send()
      while (inFlight > MAX_IN_FLIGHT) await new Promise<void>((resolve) => waiters.push(resolve))
    },

    async drain() {
      send()
      while (sent.size > 0) await Promise.all([...sent])
      if (failure !== undefined) throw failure
    },
  }
}
