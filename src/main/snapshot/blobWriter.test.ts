import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { openStore } from '../store/store'
import { tempDir } from '../store/testing/helpers'
import { createBlobStore, encodeBlob, sha256 } from './blobs'
import { createBlobWriter } from './blobWriter'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

// The helpers live as long as the process: a warning from any test here counts.
const warnings: Error[] = []
const onWarning = (w: Error) => warnings.push(w)
beforeAll(() => void process.on('warning', onWarning))
afterAll(() => void process.off('warning', onWarning))

/** Dozens of batches in flight at once, and not a listener per batch on the helpers. */
async function noListenerPileUp(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve)) // warnings are emitted on the next tick
  expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning')
}

function store() {
  const dataDir = tempDir()
  const s = openStore(dataDir)
  cleanups.push(() => {
    s.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  return s
}

/** Contents of every kind the encoder treats apart: tiny, compressible, incompressible, empty. */
function contents(): Buffer[] {
  const out = [Buffer.alloc(0), Buffer.from('x'), Buffer.from('a'.repeat(63)), Buffer.from('a'.repeat(64))]
  for (let i = 0; i < 1500; i++)
    out.push(Buffer.from(`export const v${i} = ${'"text" + '.repeat(i % 40)}1\n`))
  out.push(randomBytes(5000), randomBytes(3 * 1024 * 1024), Buffer.from('line\n'.repeat(400_000)))
  return out
}

describe('createBlobWriter', () => {
  it('stores what encodeBlob would, byte for byte, once per content, and only after drain says so', async () => {
    const { db } = store()
    const blobs = createBlobStore(db)
    const writer = createBlobWriter(db, blobs)
    const all = contents()
    // Copies: the writer may move the memory it is given to its helper threads.
    for (const raw of all) {
      writer.add(sha256(raw), Buffer.from(raw))
      writer.add(sha256(raw), Buffer.from(raw)) // the same content twice is stored once
    }
    await writer.drain()
    const rows = db.prepare<[string], { size: number; encoding: number; data: Buffer }>(
      'SELECT size, encoding, data FROM blobs WHERE hash = ?',
    )
    for (const raw of all) {
      const row = rows.get(sha256(raw))!
      const expected = encodeBlob(raw)
      expect({ size: row.size, encoding: row.encoding }).toEqual({
        size: raw.length,
        encoding: expected.encoding,
      })
      expect(row.data.equals(expected.data)).toBe(true)
      expect(blobs.get(sha256(raw)).equals(raw)).toBe(true)
    }
    expect(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get()).toBe(new Set(all.map(sha256)).size)
    await noListenerPileUp()
  })

  it('skips contents already stored, and lets the caller wait for room between batches', async () => {
    const { db } = store()
    const blobs = createBlobStore(db)
    const known = Buffer.from('known content, stored before\n'.repeat(10))
    blobs.put(sha256(known), known)
    const writer = createBlobWriter(db, blobs)
    writer.add(sha256(known), known)
    const big = Array.from({ length: 40 }, (_, i) => Buffer.alloc(2 * 1024 * 1024, `chunk ${i} `))
    for (const raw of big) {
      writer.add(sha256(raw), Buffer.from(raw))
      await writer.room()
    }
    await writer.drain()
    expect(db.prepare('SELECT COUNT(*) FROM blobs').pluck().get()).toBe(41)
    await noListenerPileUp()
    for (const raw of big) expect(blobs.get(sha256(raw)).equals(raw)).toBe(true)
  })
})
