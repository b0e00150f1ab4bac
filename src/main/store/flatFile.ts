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

/**
 * The header, read by the caller's schema, and the offset where the sections start; undefined when
 * the file is missing or its header is not whole JSON of that shape. The caller checks the rest.
 */
export function readFlatFile<H>(
  file: string,
  headerSchema: z.ZodType<H>,
): { header: H; data: Buffer; at: number } | undefined {
  let data: Buffer
  try {
    data = fs.readFileSync(file)
  } catch {
    return undefined
  }
  const eol = data.indexOf(10)
  if (eol < 0) return undefined
  let json: unknown
  try {
    json = JSON.parse(data.subarray(0, eol).toString('utf8'))
  } catch {
    return undefined
  }
  const header = headerSchema.safeParse(json)
  return header.success ? { header: header.data, data, at: eol + 1 } : undefined
}

/** A copy of `len` bytes at `at` as numbers (a copy: the file's buffer need not be aligned). */
export function float64s(data: Buffer, at: number, len: number): Float64Array {
  if (len % 8 !== 0) throw new Error('misaligned section')
  const out = new Float64Array(len / 8)
  bytesOf(out).set(data.subarray(at, at + len))
  return out
}
