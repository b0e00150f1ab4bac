import { createHash } from 'node:crypto'
import zlib from 'node:zlib'
import type { BlobTable } from '../store/snapshot-tables'

/** Hex sha256 of the raw bytes: the identity of a file's content everywhere in Stepwise. */
export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

export const ENCODING_RAW = 0
export const ENCODING_DEFLATE_RAW = 1
export const ENCODING_BROTLI = 2

/**
 * Brotli at quality 0 with a 256 KB window (2^18). Measured on a generated source tree (10,000
 * files of ~7 KB): brotli q1 175 MB/s for a ratio of 0.33; deflate-raw level 1 105 MB/s for 0.32;
 * brotli q0 250 MB/s for 0.37. Again on 12,000 files (67 MB) of real npm packages, one thread:
 * q1 138 MB/s for 0.279, q1 with an 18-bit window 146 MB/s for 0.282, q0 with it 171 MB/s for
 * 0.300, deflate-raw level 1 53 MB/s. Compression is most of a first snapshot's work:
 * checkpoint speed matters more than a few percent of disk. Decoding does not depend on these
 * (blobs stored at other settings read the same).
 */
export const BROTLI_QUALITY = 0
/** Brotli's window: 2^18 bytes. */
export const BROTLI_WINDOW_BITS = 18
/**
 * Smaller blobs are stored raw. Each call to brotli costs ~14 µs whatever the size (making the
 * encoder and its stream): on the scale tree's npm packages, 57 % of the files are under 1 KB but
 * only 1.1 % of the bytes. Storing them raw took brotli's time over 30,000 of them from 2.35–2.73 s
 * to 2.06–2.24 s, and a first session on the whole tree from a median of 7.47 s to 6.31 s (five
 * each, alternated), for a store 3.6 % bigger (136 MB against 131 MB).
 */
export const RAW_BELOW_BYTES = 1024

export function encodeBlob(raw: Buffer): { encoding: number; data: Buffer } {
  if (raw.length < RAW_BELOW_BYTES) return { encoding: ENCODING_RAW, data: raw }
  const packed = zlib.brotliCompressSync(raw, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlib.constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  })
  // Already-compressed content (images, archives) is kept as is.
  return packed.length < raw.length
    ? { encoding: ENCODING_BROTLI, data: packed }
    : { encoding: ENCODING_RAW, data: raw }
}

function decodeBlob(encoding: number, data: Buffer): Buffer {
  switch (encoding) {
    case ENCODING_RAW:
      return data
    case ENCODING_DEFLATE_RAW:
      return zlib.inflateRawSync(data)
    case ENCODING_BROTLI:
      return zlib.brotliDecompressSync(data)
    default:
      throw new Error(`unknown encoding ${encoding}`)
  }
}

export class BlobError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BlobError'
  }
}

export interface BlobStore {
  has(hash: string): boolean
  /** Stores `raw` under `hash` unless it is already there (dedup across snapshots and sessions). */
  put(hash: string, raw: Buffer): boolean
  /** Stores content already encoded (by a helper thread) unless `hash` is there already. */
  putEncoded(hash: string, size: number, encoding: number, data: Uint8Array): void
  /** The raw bytes, verified against `hash`; `what` names the file in error messages. */
  get(hash: string, what?: string): Buffer
}

/** Content in the `blobs` table (store/snapshot-tables.ts), encoded on the way in and checked on the way out. */
export function createBlobStore(table: BlobTable): BlobStore {
  return {
    has: (hash) => table.has(hash),

    put(hash, raw) {
      if (table.has(hash)) return false
      const { encoding, data } = encodeBlob(raw)
      return table.insert(hash, raw.length, encoding, data)
    },

    putEncoded(hash, size, encoding, data) {
      // A helper's answer arrives as a plain Uint8Array; SQLite binds Buffers.
      table.insert(hash, size, encoding, Buffer.from(data.buffer, data.byteOffset, data.byteLength))
    },

    get(hash, what) {
      const label = what ? `${what} (blob ${hash})` : `blob ${hash}`
      const row = table.get(hash)
      if (!row) throw new BlobError(`Snapshot data for ${label} is missing from the store.`)
      let raw: Buffer
      try {
        raw = decodeBlob(row.encoding, row.data)
      } catch {
        throw new BlobError(`Snapshot data for ${label} is corrupt: it does not decompress.`)
      }
      if (raw.length !== row.size || sha256(raw) !== hash) {
        throw new BlobError(`Snapshot data for ${label} is corrupt: its content no longer matches its hash.`)
      }
      return raw
    },
  }
}
