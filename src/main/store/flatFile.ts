import fs from 'node:fs'
import path from 'node:path'
import type { z } from 'zod'

/*
 * Caches kept as flat files beside the store (snapshot/savedState.ts, codeindex/checkState.ts,
 * containment/secrets-scan-state.ts):
 * a JSON header line, then binary sections. Written whole to a new file renamed
 * over the old one, so a crash leaves one or the other, never half of one.
 */

export const bytesOf = (a: Float64Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)

export function writeFlatFile(file: string, header: object, sections: readonly Buffer[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n', 'utf8'), ...sections]))
  fs.renameSync(tmp, file)
}

/** A flat file as read: its header, its bytes, where the sections start, and a tail read apart. */
export interface FlatFileRead<H> {
  header: H
  data: Buffer
  at: number
  tail?: Float64Array
}

/**
 * The header, read by the caller's schema, and the offset where the sections start; undefined when
 * the file is missing or its header is not whole JSON of that shape. The caller checks the rest.
 *
 * `numericTail`: for a file whose last section is numbers, its length in bytes as the header gives
 * it. That section is then read straight into `tail` (a Float64Array) and left out of `data`: no
 * copy of it, and no second set of fresh pages for one (a 72,000-file tree's 6.9 MB saved state
 * loaded in a new process in a median of 39 ms against 46 ms, docs/benchmarks.md). A tail the
 * file cannot hold (not whole numbers, or longer than what follows the header) stays in `data`.
 */
export function readFlatFile<H>(
  file: string,
  headerSchema: z.ZodType<H>,
  numericTail?: (header: H) => number,
): FlatFileRead<H> | undefined {
  let fd: number
  try {
    fd = fs.openSync(file, 'r')
  } catch {
    return undefined
  }
  try {
    return readOpen(fd, headerSchema, numericTail)
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

/** The head first (HEAD_BYTES, which hold the header line), then the rest as the header says. */
function readOpen<H>(
  fd: number,
  headerSchema: z.ZodType<H>,
  numericTail: ((header: H) => number) | undefined,
): FlatFileRead<H> | undefined {
  const size = fs.fstatSync(fd).size
  const head = Buffer.allocUnsafeSlow(Math.min(size, HEAD_BYTES))
  const headRead = readFully(fd, head, 0)
  const eol = head.subarray(0, headRead).indexOf(10)
  if (eol < 0) return size > headRead ? readWhole(fd, size, headerSchema) : undefined
  const header = parseHeader(head.subarray(0, eol), headerSchema)
  if (!header) return undefined
  const at = eol + 1
  const tailBytes = numericTail?.(header) ?? 0
  const fits = Number.isInteger(tailBytes) && tailBytes > 0 && tailBytes % 8 === 0 && at + tailBytes <= size
  const dataBytes = fits ? size - tailBytes : size
  const data = Buffer.allocUnsafeSlow(dataBytes)
  const fromHead = Math.min(headRead, dataBytes)
  head.copy(data, 0, 0, fromHead)
  if (readFully(fd, data.subarray(fromHead), fromHead) !== dataBytes - fromHead) return undefined
  if (!fits) return { header, data, at }
  const tail = new Float64Array(tailBytes / 8)
  const tailView = new Uint8Array(tail.buffer)
  // A file smaller than the head buffer has (some of) its tail there already.
  const tailInHead = Math.max(0, headRead - dataBytes)
  if (tailInHead > 0) head.copy(tailView, 0, dataBytes, headRead)
  if (readFully(fd, tailView.subarray(tailInHead), dataBytes + tailInHead) !== tailBytes - tailInHead)
    return undefined
  return { header, data, at, tail }
}

/** A header line longer than this (none is: they name a few counts and paths) is read the old way. */
const HEAD_BYTES = 64 * 1024

function readWhole<H>(fd: number, size: number, headerSchema: z.ZodType<H>): FlatFileRead<H> | undefined {
  const data = Buffer.allocUnsafeSlow(size)
  if (readFully(fd, data, 0) !== size) return undefined
  const eol = data.indexOf(10)
  if (eol < 0) return undefined
  const header = parseHeader(data.subarray(0, eol), headerSchema)
  return header ? { header, data, at: eol + 1 } : undefined
}

function parseHeader<H>(line: Buffer, headerSchema: z.ZodType<H>): H | undefined {
  let json: unknown
  try {
    json = JSON.parse(line.toString('utf8'))
  } catch {
    return undefined
  }
  const header = headerSchema.safeParse(json)
  return header.success ? header.data : undefined
}

/** Reads into `into` from `position` until it is full or the file ends; the bytes read. */
function readFully(fd: number, into: Uint8Array, position: number): number {
  let done = 0
  while (done < into.length) {
    const n = fs.readSync(fd, into, done, into.length - done, position + done)
    if (n === 0) break
    done += n
  }
  return done
}

/** A copy of `len` bytes at `at` as numbers (a copy: the file's buffer need not be aligned). */
export function float64s(data: Buffer, at: number, len: number): Float64Array {
  if (len % 8 !== 0) throw new Error('misaligned section')
  const out = new Float64Array(len / 8)
  bytesOf(out).set(data.subarray(at, at + len))
  return out
}
