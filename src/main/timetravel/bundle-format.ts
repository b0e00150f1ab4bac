import { createHash } from 'node:crypto'
import fs from 'node:fs'
import zlib from 'node:zlib'
import { pushAll } from '../../shared/arrays'

/*
 * The container of a session bundle (docs/session-format.md): a 12-byte header, a
 * run of frames each holding whole records, and a 48-byte trailer with the length
 * and sha256 of everything before it. Frames are compressed one by one, so both
 * sides stream with memory bounded by one frame, and the reader is synchronous:
 * the import runs inside one SQLite transaction.
 */

/** `\x89SWB\r\n\x1a\n`: the high byte and the line endings catch text-mode copies, as PNG's do. */
export const BUNDLE_MAGIC = Buffer.from([0x89, 0x53, 0x57, 0x42, 0x0d, 0x0a, 0x1a, 0x0a])
export const FORMAT_MAJOR = 1
export const FORMAT_MINOR = 0
export const HEADER_BYTES = 12
export const TRAILER_MAGIC = Buffer.from('SWB-END\n', 'ascii')
export const TRAILER_BYTES = 48
const FRAME_HEADER_BYTES = 9
const RECORD_HEADER_BYTES = 5

export const FRAME_STORED = 0
export const FRAME_DEFLATE = 1
export const FRAME_BROTLI = 2

/** A frame is flushed once its records reach this many bytes (a single larger record makes a larger frame). */
const FRAME_TARGET_BYTES = 1024 * 1024
/** No frame decompresses to more than this: a guard against a crafted frame. */
export const MAX_FRAME_BYTES = 1024 * 1024 * 1024

/** Record kinds below 0x80 are required (unknown ones refuse the bundle); 0x80 and above are optional. */
export const RECORD = {
  meta: 1,
  session: 2,
  snapshot: 3,
  blob: 4,
  event: 5,
  traffic: 6,
  end: 7,
} as const
export const FIRST_OPTIONAL_RECORD = 0x80

export type BundleErrorCode = 'not-a-bundle' | 'newer-version' | 'truncated' | 'corrupt' | 'unsafe-path'

/** A bundle this version refuses; the message is for the user (what happened, what to try). */
export class BundleError extends Error {
  override name = 'BundleError'
  constructor(
    readonly code: BundleErrorCode,
    message: string,
  ) {
    super(message)
  }
}

export interface BundleWriterOptions {
  /** How compressible frames are packed (default brotli; see docs/session-format.md for the figures). */
  method?: typeof FRAME_DEFLATE | typeof FRAME_BROTLI
  /** For tests crafting bundles: the version written in the header. */
  version?: { major: number; minor: number }
}

/** Writes a bundle to `file` frame by frame; `finish()` appends the trailer and closes it. */
export class BundleWriter {
  private readonly fd: number
  private readonly hash = createHash('sha256')
  private offset = 0
  private readonly method: number
  /** Records that compress (JSON, raw blobs) and those already compressed (brotli blobs), framed apart. */
  private readonly packed = { parts: [] as Buffer[], bytes: 0 }
  private readonly stored = { parts: [] as Buffer[], bytes: 0 }

  constructor(
    readonly file: string,
    opts: BundleWriterOptions = {},
  ) {
    this.method = opts.method ?? FRAME_BROTLI
    this.fd = fs.openSync(file, 'w')
    const header = Buffer.alloc(HEADER_BYTES)
    BUNDLE_MAGIC.copy(header, 0)
    header.writeUInt16BE(opts.version?.major ?? FORMAT_MAJOR, 8)
    header.writeUInt16BE(opts.version?.minor ?? FORMAT_MINOR, 10)
    this.write(header)
  }

  /** Adds one record; `parts` are its payload, concatenated (kept apart to avoid copying big blobs). */
  add(kind: number, parts: Buffer[], opts: { precompressed?: boolean } = {}): void {
    const length = parts.reduce((n, p) => n + p.length, 0)
    const head = Buffer.allocUnsafe(RECORD_HEADER_BYTES)
    head.writeUInt8(kind, 0)
    head.writeUInt32BE(length, 1)
    const into = opts.precompressed ? this.stored : this.packed
    into.parts.push(head)
    pushAll(into.parts, parts)
    into.bytes += RECORD_HEADER_BYTES + length
    if (into.bytes >= FRAME_TARGET_BYTES)
      this.flushFrame(into, opts.precompressed ? FRAME_STORED : this.method)
  }

  json(kind: number, value: unknown): void {
    this.add(kind, [Buffer.from(JSON.stringify(value), 'utf8')])
  }

  /** Ends the current frames, so the records added so far come before any added later. */
  flush(): void {
    this.flushFrame(this.packed, this.method)
    this.flushFrame(this.stored, FRAME_STORED)
  }

  /** Flushes, writes the trailer and closes the file; returns the file's size in bytes. */
  finish(): number {
    this.flush()
    const bodyLength = this.offset
    const trailer = Buffer.alloc(TRAILER_BYTES)
    TRAILER_MAGIC.copy(trailer, 0)
    trailer.writeBigUInt64BE(BigInt(bodyLength), 8)
    this.hash.digest().copy(trailer, 16)
    fs.writeSync(this.fd, trailer)
    fs.fsyncSync(this.fd)
    fs.closeSync(this.fd)
    return bodyLength + TRAILER_BYTES
  }

  /** Closes without a trailer (the caller removes the file). */
  abort(): void {
    try {
      fs.closeSync(this.fd)
    } catch {
      // already closed
    }
  }

  private flushFrame(into: { parts: Buffer[]; bytes: number }, method: number): void {
    if (into.bytes === 0) return
    const raw = Buffer.concat(into.parts, into.bytes)
    into.parts = []
    into.bytes = 0
    let data = method === FRAME_STORED ? raw : compress(method, raw)
    if (data.length >= raw.length) {
      data = raw
      method = FRAME_STORED
    }
    const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES)
    head.writeUInt8(method, 0)
    head.writeUInt32BE(data.length, 1)
    head.writeUInt32BE(raw.length, 5)
    this.write(head)
    this.write(data)
  }

  private write(buf: Buffer): void {
    fs.writeSync(this.fd, buf)
    this.hash.update(buf)
    this.offset += buf.length
  }
}

function compress(method: number, raw: Buffer): Buffer {
  if (method === FRAME_DEFLATE) return zlib.deflateRawSync(raw, { level: 6 })
  return zlib.brotliCompressSync(raw, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  })
}

function decompress(method: number, data: Buffer, rawLength: number): Buffer {
  const opts = { maxOutputLength: Math.max(rawLength, 1) }
  switch (method) {
    case FRAME_STORED:
      return data
    case FRAME_DEFLATE:
      return zlib.inflateRawSync(data, opts)
    case FRAME_BROTLI:
      return zlib.brotliDecompressSync(data, opts)
    default:
      throw new Error(`unknown frame method ${method}`)
  }
}

export interface BundleRecord {
  kind: number
  payload: Buffer
}

export interface OpenedBundle {
  version: { major: number; minor: number }
  /** Bytes of the whole file. */
  size: number
  /** The records in file order; throws BundleError on a damaged frame. */
  records(): Generator<BundleRecord>
}

function readExactly(fd: number, length: number, position: number): Buffer {
  const buf = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, position + got)
    if (n === 0) break
    got += n
  }
  return got === length ? buf : buf.subarray(0, got)
}

/**
 * Checks the header (signature, a major version this reader knows), then the
 * trailer (length and sha256 over every byte before it), before any record is
 * read: a truncated or altered file is refused as a whole.
 */
export function openBundle(file: string): OpenedBundle {
  const name = file
  const fd = fs.openSync(file, 'r')
  try {
    const size = fs.fstatSync(fd).size
    const header = readExactly(fd, HEADER_BYTES, 0)
    if (header.length < HEADER_BYTES || !header.subarray(0, 8).equals(BUNDLE_MAGIC)) {
      throw new BundleError(
        'not-a-bundle',
        `${name} is not a Stepwise session bundle (it does not start with the bundle signature). Bundles are written by: stepwise sessions export ID --format bundle`,
      )
    }
    const version = { major: header.readUInt16BE(8), minor: header.readUInt16BE(10) }
    if (version.major > FORMAT_MAJOR) {
      throw new BundleError(
        'newer-version',
        `${name} is a session bundle of format ${version.major}.${version.minor}, written by a newer Stepwise; this version reads format ${FORMAT_MAJOR}.x. Update Stepwise to import it.`,
      )
    }
    if (version.major < 1) throw new BundleError('corrupt', `${name} has an invalid format version 0.`)
    const truncated = new BundleError(
      'truncated',
      `${name} is incomplete: it ends before its trailer (cut short while copying or downloading?). Nothing was imported; copy or export it again.`,
    )
    if (size < HEADER_BYTES + TRAILER_BYTES) throw truncated
    const trailer = readExactly(fd, TRAILER_BYTES, size - TRAILER_BYTES)
    if (!trailer.subarray(0, 8).equals(TRAILER_MAGIC)) throw truncated
    const bodyLength = Number(trailer.readBigUInt64BE(8))
    if (bodyLength !== size - TRAILER_BYTES) throw truncated
    const hash = createHash('sha256')
    const chunk = Buffer.allocUnsafe(4 * 1024 * 1024)
    for (let at = 0; at < bodyLength;) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, bodyLength - at), at)
      if (n === 0) throw truncated
      hash.update(chunk.subarray(0, n))
      at += n
    }
    if (!hash.digest().equals(trailer.subarray(16, 48))) {
      throw new BundleError(
        'corrupt',
        `${name} is damaged: its checksum does not match its contents. Nothing was imported; copy or export it again.`,
      )
    }
    return { version, size, records: () => readRecords(file, bodyLength) }
  } finally {
    fs.closeSync(fd)
  }
}

function* readRecords(file: string, bodyLength: number): Generator<BundleRecord> {
  const damaged = (why: string) =>
    new BundleError('corrupt', `${file} is damaged: ${why}. Nothing was imported.`)
  const fd = fs.openSync(file, 'r')
  try {
    let at = HEADER_BYTES
    while (at < bodyLength) {
      if (at + FRAME_HEADER_BYTES > bodyLength) throw damaged(`a frame header at byte ${at} is cut short`)
      const head = readExactly(fd, FRAME_HEADER_BYTES, at)
      const method = head.readUInt8(0)
      const storedLength = head.readUInt32BE(1)
      const rawLength = head.readUInt32BE(5)
      at += FRAME_HEADER_BYTES
      if (at + storedLength > bodyLength) throw damaged(`a frame at byte ${at} runs past the end`)
      if (rawLength > MAX_FRAME_BYTES) throw damaged(`a frame claims ${rawLength} bytes`)
      let raw: Buffer
      try {
        raw = decompress(method, readExactly(fd, storedLength, at), rawLength)
      } catch {
        throw damaged(`a frame at byte ${at} does not decompress`)
      }
      if (raw.length !== rawLength) throw damaged(`a frame at byte ${at} has the wrong length`)
      at += storedLength
      for (let r = 0; r < raw.length;) {
        if (r + RECORD_HEADER_BYTES > raw.length) throw damaged('a record header is cut short')
        const kind = raw.readUInt8(r)
        const length = raw.readUInt32BE(r + 1)
        r += RECORD_HEADER_BYTES
        if (r + length > raw.length) throw damaged('a record runs past its frame')
        yield { kind, payload: raw.subarray(r, r + length) }
        r += length
      }
    }
  } finally {
    fs.closeSync(fd)
  }
}
