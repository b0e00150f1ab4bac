import fs from 'node:fs'
import zlib from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { snapshotTablesOf } from '../store/snapshot-tables'
import { openStore } from '../store/store'
import { tempDir } from '../store/testing/helpers'
import {
  createBlobStore,
  ENCODING_BROTLI,
  ENCODING_DEFLATE_RAW,
  ENCODING_RAW,
  encodeBlob,
  RAW_BELOW_BYTES,
  sha256,
} from './blobs'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

describe('blobs stored at earlier settings', () => {
  // Data folders hold blobs compressed at brotli quality 1 with its default 4 MB window
  // (before the first snapshot moved to quality 0, 256 KB) and deflate-raw: they must
  // read back as they were, beside blobs stored now.
  it('read back byte for byte beside blobs encoded now', () => {
    const dir = tempDir('stepwise-blobs-')
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
    const store = openStore(dir)
    cleanups.unshift(() => store.close())
    const blobs = createBlobStore(snapshotTablesOf(store).blobs)
    const raw = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `line ${i % 977}\n`).join(''))
    const q = zlib.constants.BROTLI_PARAM_QUALITY
    const earlier: Array<[string, number, Buffer]> = [
      ['q1', ENCODING_BROTLI, zlib.brotliCompressSync(raw, { params: { [q]: 1 } })],
      ['q11', ENCODING_BROTLI, zlib.brotliCompressSync(Buffer.concat([raw, Buffer.from('x')]))],
      ['deflate', ENCODING_DEFLATE_RAW, zlib.deflateRawSync(Buffer.concat([raw, Buffer.from('y')]))],
    ]
    const contents = [raw, Buffer.concat([raw, Buffer.from('x')]), Buffer.concat([raw, Buffer.from('y')])]
    earlier.forEach(([, encoding, data], i) =>
      blobs.putEncoded(sha256(contents[i]), contents[i].length, encoding, data),
    )
    const now = Buffer.concat([raw, Buffer.from('z')])
    expect(encodeBlob(now).encoding).toBe(ENCODING_BROTLI)
    blobs.put(sha256(now), now)
    for (const c of [...contents, now]) expect(blobs.get(sha256(c)).equals(c)).toBe(true)
  })
})

describe('encodeBlob', () => {
  it('stores contents under RAW_BELOW_BYTES raw, and compresses from there on', () => {
    const text = (n: number) => Buffer.from('export const a = 1\n'.repeat(64).slice(0, n))
    expect(encodeBlob(text(RAW_BELOW_BYTES - 1))).toEqual({
      encoding: ENCODING_RAW,
      data: text(RAW_BELOW_BYTES - 1),
    })
    const packed = encodeBlob(text(RAW_BELOW_BYTES))
    expect(packed.encoding).toBe(ENCODING_BROTLI)
    expect(zlib.brotliDecompressSync(packed.data).equals(text(RAW_BELOW_BYTES))).toBe(true)
  })
})
