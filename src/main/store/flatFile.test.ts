import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { bytesOf, float64s, readFlatFile, writeFlatFile } from './flatFile'

/*
 * The flat files beside the store: a header line, then sections. A last section of numbers can be
 * read straight into its own array (`numericTail`); everything else reads as it always did.
 */

const header = z.object({ text: z.number(), numbers: z.number() })
const tailOf = (h: z.infer<typeof header>) => h.numbers

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-flat-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

/** A file of `textBytes` of text and `count` numbers after it. */
function write(name: string, textBytes: number, count: number) {
  const text = Buffer.from('abcdefgh\0'.repeat(Math.ceil(textBytes / 9)).slice(0, textBytes), 'utf8')
  const numbers = Float64Array.from({ length: count }, (_, i) => i * 1.5 - 7)
  const file = path.join(dir, name)
  writeFlatFile(file, { text: text.length, numbers: numbers.byteLength }, [text, bytesOf(numbers)])
  return { file, text, numbers }
}

describe('readFlatFile', () => {
  it.each([
    ['within the first read', 100, 20],
    ['past the first read', 300 * 1024, 40_000],
    ['whose tail starts inside the first read', 10, 9_000],
  ])('reads a numeric tail apart, for a file %s', (_what, textBytes, count) => {
    const { file, text, numbers } = write('a.state', textBytes, count)
    const read = readFlatFile(file, header, tailOf)!
    expect(read.tail).toEqual(numbers)
    expect(read.data.subarray(read.at)).toEqual(text)
    expect(read.data.length + read.tail!.byteLength).toBe(fs.statSync(file).size)
    // Read whole, as a caller without a tail reads it: the same bytes.
    const whole = readFlatFile(file, header)!
    expect(whole.tail).toBeUndefined()
    expect(float64s(whole.data, whole.at + text.length, numbers.byteLength)).toEqual(numbers)
  })

  it('reads a tail the file cannot hold as part of the data, for the caller to refuse', () => {
    const { file } = write('b.state', 64, 4)
    for (const impossible of [12, 8 * 1000, -8, 0.5]) {
      const read = readFlatFile(file, header, () => impossible)!
      expect(read.tail).toBeUndefined()
      expect(read.data.length).toBe(fs.statSync(file).size)
    }
  })

  it('reads a header line longer than the first read', () => {
    const file = path.join(dir, 'long.state')
    const long = z.object({ pad: z.string(), numbers: z.number() })
    const numbers = Float64Array.of(1, 2, 3)
    writeFlatFile(file, { pad: 'x'.repeat(100_000), numbers: numbers.byteLength }, [bytesOf(numbers)])
    const read = readFlatFile(file, long, (h) => h.numbers)!
    expect(read.header.pad).toHaveLength(100_000)
    expect(float64s(read.data, read.at, numbers.byteLength)).toEqual(numbers)
  })

  it('answers undefined for a missing file, a file with no header line and a header of another shape', () => {
    expect(readFlatFile(path.join(dir, 'none.state'), header, tailOf)).toBeUndefined()
    fs.writeFileSync(path.join(dir, 'nl.state'), 'no line end')
    expect(readFlatFile(path.join(dir, 'nl.state'), header, tailOf)).toBeUndefined()
    fs.writeFileSync(path.join(dir, 'shape.state'), '{"text":"x"}\nabc')
    expect(readFlatFile(path.join(dir, 'shape.state'), header, tailOf)).toBeUndefined()
  })

  it('gives a truncated file back shorter than its header says, tail or not', () => {
    const { file, text, numbers } = write('c.state', 1000, 100)
    fs.truncateSync(file, fs.statSync(file).size - 100)
    const read = readFlatFile(file, header, tailOf)!
    // The header's tail no longer fits after the text: the caller's length check refuses the rest.
    expect(read.data.length - read.at + (read.tail?.byteLength ?? 0)).toBeLessThan(
      text.length + numbers.byteLength,
    )
  })
})
