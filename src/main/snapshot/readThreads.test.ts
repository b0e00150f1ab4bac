import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { tempDir } from '../store/testing/helpers'
import { sha256 } from './blobs'
import {
  createThreadedReads,
  DUPLICATE,
  localRead,
  readHelpers,
  releaseReads,
  type FileRead,
} from './readThreads'

const cleanups: Array<() => void> = []
afterEach(() => {
  while (cleanups.length) cleanups.pop()!()
})

// The helpers live as long as the process: a warning from any test here counts.
const warnings: Error[] = []
const onWarning = (w: Error) => warnings.push(w)
beforeAll(() => void process.on('warning', onWarning))
afterAll(() => void process.off('warning', onWarning))

/** Contents of every kind the encoder treats apart: empty, tiny, compressible, incompressible, big. */
function tree(): { root: string; paths: string[]; contents: Map<string, Buffer> } {
  const root = fs.realpathSync(tempDir('stepwise-reads-'))
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  const contents = new Map<string, Buffer>()
  const raws = [Buffer.alloc(0), Buffer.from('x'), Buffer.from('a'.repeat(63)), Buffer.from('a'.repeat(64))]
  for (let i = 0; i < 300; i++)
    raws.push(Buffer.from(`export const v${i} = ${'"text" + '.repeat(i % 40)}1\n`))
  raws.push(randomBytes(5000), randomBytes(3 * 1024 * 1024), Buffer.from('line\n'.repeat(400_000)))
  raws.forEach((raw, i) => {
    const rel = `d${i % 7}/f${i}.bin`
    fs.mkdirSync(path.join(root, `d${i % 7}`), { recursive: true })
    fs.writeFileSync(path.join(root, rel), raw)
    contents.set(rel, raw)
  })
  return { root, paths: [...contents.keys()], contents }
}

/** A capture's reads, said done after the test (the last capture done ends the helpers). */
function readsOf(root: string): ReturnType<typeof createThreadedReads> {
  const reads = createThreadedReads(root)
  cleanups.push(() => reads.done())
  return reads
}

const encoded = (r: FileRead) =>
  r.error === undefined && r.data !== undefined ? { ...r, data: Buffer.from(r.data) } : r

/**
 * Two reads alike: their fields equal and their bytes equal. The bytes are compared with
 * Buffer#equals — a deep toEqual walks a 3 MB buffer element by element (~15 s of this test).
 */
function expectSameRead(got: FileRead, want: FileRead): void {
  const { data: gotData, ...gotRest } = { data: undefined, ...got } as FileRead & { data?: Uint8Array }
  const { data: wantData, ...wantRest } = { data: undefined, ...want } as FileRead & { data?: Uint8Array }
  expect(gotRest).toEqual(wantRest)
  expect(gotData === undefined).toBe(wantData === undefined)
  if (gotData && wantData) expect(Buffer.from(gotData).equals(Buffer.from(wantData))).toBe(true)
}

describe('createThreadedReads', () => {
  it('answers what reading, hashing and encoding here would, byte for byte, in the order asked', async () => {
    const { root, paths, contents } = tree()
    const got = await readsOf(root).read(paths)
    expect(got).toHaveLength(paths.length)
    got!.forEach((r, i) => expectSameRead(r, localRead(contents.get(paths[i])!)))
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning')
  })

  it('sends a content once per capture: its other files come back as DUPLICATE, after it', async () => {
    const root = fs.realpathSync(tempDir('stepwise-reads-'))
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
    const same = Buffer.from('the same content in many files\n'.repeat(50))
    const copies = Array.from({ length: 9 }, (_, i) => `copies/c${i}.txt`)
    fs.mkdirSync(path.join(root, 'copies'))
    for (const rel of copies) fs.writeFileSync(path.join(root, rel), same)
    const reads = readsOf(root)
    const first = (await reads.read(copies))!
    // Each helper sends its first copy with bytes; every later one (in order) is a DUPLICATE.
    const withBytes = first.flatMap((r, i) => ('data' in r ? [i] : []))
    expect(withBytes.length).toBeGreaterThanOrEqual(1)
    expect(withBytes[0]).toBe(0)
    for (const r of first) expect(r).toMatchObject({ hash: sha256(same), size: same.length })
    expect(first.filter((r) => 'encoding' in r && r.encoding === DUPLICATE)).toHaveLength(
      9 - withBytes.length,
    )
    // Later in the same capture: all duplicates. A new capture sends the bytes again.
    expect((await reads.read(copies))!.every((r) => 'encoding' in r && r.encoding === DUPLICATE)).toBe(true)
    const again = (await readsOf(root).read(copies.slice(0, 1)))![0]
    expect(encoded(again)).toEqual(encoded(localRead(same)))
  })

  it('says why a file could not be read, and reads the rest', async () => {
    const { root, paths } = tree()
    // A FIFO (a file swapped for one after its stat) is refused at once, never waited on.
    execFileSync('mkfifo', [path.join(root, 'fifo')])
    const asked = [paths[0], 'missing.txt', 'd0', 'fifo', paths[1]]
    const got = (await readsOf(root).read(asked))!
    expect(got.slice(1, 4)).toEqual([
      { error: 'ENOENT' },
      { error: 'not a regular file' },
      { error: 'not a regular file' },
    ])
    expect('hash' in got[0] && 'hash' in got[4]).toBe(true)
  })

  it('frees the bytes of stored answers at once (their buffers detached), and skips the rest', async () => {
    const { root, paths } = tree()
    const got = (await readsOf(root).read([...paths, 'missing.txt', paths[0]]))!
    const withBytes = got.flatMap((r) => (r.error === undefined && r.data !== undefined ? [r.data] : []))
    // All but the empty file's.
    expect(withBytes.filter((d) => d.byteLength > 0).length).toBe(withBytes.length - 1)
    // An error and a DUPLICATE (the first path again) carry no bytes; a second release finds none left.
    releaseReads(got)
    releaseReads(got)
    expect(withBytes.filter((d) => d.byteLength > 0)).toEqual([])
    expect(got.at(-2)).toEqual({ error: 'ENOENT' })
    expect(got.at(-1)).toMatchObject({ encoding: DUPLICATE })
  })

  it('ends its helpers when the last capture reading is done, not before', async () => {
    const { root, paths } = tree()
    const some = paths.slice(0, 40)
    const a = createThreadedReads(root)
    const b = createThreadedReads(root)
    expect(await a.read(some)).toHaveLength(40)
    const workers = readHelpers.get()!.map((h) => h.worker)
    const gone = Promise.all(workers.map((w) => once(w, 'exit')))
    a.done()
    expect(await b.read(some)).toHaveLength(40)
    // b read on the same helpers: a's end left them running.
    expect(readHelpers.get()!.map((h) => h.worker)).toEqual(workers)
    b.done()
    await gone
    // A capture after that starts new ones.
    const c = readsOf(root)
    expect((await c.read(some))!.every((r) => r.error === undefined)).toBe(true)
    expect(readHelpers.get()!.some((h) => workers.includes(h.worker))).toBe(false)
  })
})
