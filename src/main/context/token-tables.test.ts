import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
import { GptEncoding } from 'gpt-tokenizer/GptEncoding'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { builtTablePath, ENCODINGS, libraryTable, rankTable, tableBytes, type Encoding } from './token-tables'

/*
 * The rank tables a session counts with: the file the build writes holds the library's table
 * exactly, a session finds it beside the bundle (or one folder up, from chunks/) and passes over
 * one of another version, a damaged one or one a newer V8 wrote. The encoder on the built table is held to tiktoken's
 * own answers: the test plans gpt-tokenizer ships (data/TestPlans.txt, each sample encoded by
 * OpenAI's Python tiktoken).
 */

let tmp: string
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-token-tables-'))
})
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** A bundle folder (`main/`) with `chunks/` under it and the build's tables beside it. */
function bundleWithTables(tables: Partial<Record<string, Uint8Array>>): { main: string; chunks: string } {
  const main = path.join(tmp, 'main')
  const chunks = path.join(main, 'chunks')
  fs.mkdirSync(chunks, { recursive: true })
  for (const [name, text] of Object.entries(tables)) {
    fs.mkdirSync(path.dirname(path.join(main, name)), { recursive: true })
    fs.writeFileSync(path.join(main, name), text!)
  }
  return { main, chunks }
}

interface Plan {
  encoding: string
  sample: string
  encoded: number[]
}

function testPlans(): Plan[] {
  const file = createRequire(import.meta.url).resolve('gpt-tokenizer/data/TestPlans.txt')
  return fs
    .readFileSync(file, 'utf8')
    .split(/\n\n(?=EncodingName: )/)
    .map((block) => {
      const m = /^EncodingName: (\S+)\nSample: ([\s\S]*)\nEncoded: (\[[^\]]*\])\s*$/.exec(block)
      if (!m) throw new Error(`Unreadable test plan: ${block.slice(0, 80)}`)
      return { encoding: m[1], sample: m[2], encoded: JSON.parse(m[3]) as number[] }
    })
}

describe('token rank tables', () => {
  it("writes each encoding's table as bytes that read back as the library's table", () => {
    for (const encoding of ENCODINGS) {
      const table = libraryTable(encoding)
      expect(table.length).toBeGreaterThan(100_000)
      expect(v8.deserialize(tableBytes(encoding))).toEqual(table)
    }
  })

  it('reads the built table beside the bundle, or one folder up from chunks/', () => {
    const tiny = v8.serialize(['a', 'b', [255]])
    const { main, chunks } = bundleWithTables({ [builtTablePath('o200k_base')]: tiny })
    expect(rankTable('o200k_base', main)).toEqual(['a', 'b', [255]])
    expect(rankTable('o200k_base', chunks)).toEqual(['a', 'b', [255]])
    // No file for the other encoding: the library's table.
    expect(rankTable('cl100k_base', main)).toEqual(libraryTable('cl100k_base'))
  })

  it("passes over another version's table, a damaged one and a newer V8's, for the library's", () => {
    const other = builtTablePath('o200k_base').replace(/gpt-tokenizer-[^-]+-/, 'gpt-tokenizer-0.0.1-')
    const whole = v8.serialize(['a', 'b', 'c'])
    const cut = bundleWithTables({
      [other]: v8.serialize(['a']),
      [builtTablePath('cl100k_base')]: whole.subarray(0, whole.length - 2),
    })
    expect(rankTable('o200k_base', cut.main)).toEqual(libraryTable('o200k_base'))
    expect(rankTable('cl100k_base', cut.main)).toEqual(libraryTable('cl100k_base'))
    const write = (bytes: Uint8Array) =>
      fs.writeFileSync(path.join(cut.main, builtTablePath('cl100k_base')), bytes)
    // Whole, but not a table: a number where a token belongs, a gap, an object.
    for (const value of [['a', 7], ['a', null], { 0: 'a' }]) {
      write(v8.serialize(value))
      expect(rankTable('cl100k_base', cut.main)).toEqual(libraryTable('cl100k_base'))
    }
    // The format's version (the byte after the 0xFF tag) above this V8's: written by a newer one.
    const newer = Buffer.from(whole)
    expect(newer[0]).toBe(0xff)
    newer[1] = 0xfe
    write(newer)
    expect(rankTable('cl100k_base', cut.main)).toEqual(libraryTable('cl100k_base'))
    // The same file as this V8 wrote it is taken: the cases above fail for what they change.
    write(whole)
    expect(rankTable('cl100k_base', cut.main)).toEqual(['a', 'b', 'c'])
  })

  it("counts as tiktoken does on gpt-tokenizer's test plans, from the built table", () => {
    const { chunks } = bundleWithTables(
      Object.fromEntries(ENCODINGS.map((e) => [builtTablePath(e), tableBytes(e)])),
    )
    const plans = testPlans().filter((p): p is Plan & { encoding: Encoding } =>
      (ENCODINGS as readonly string[]).includes(p.encoding),
    )
    expect(plans.length).toBeGreaterThan(100)
    for (const encoding of ENCODINGS) {
      const api = GptEncoding.getEncodingApi(encoding, () => rankTable(encoding, chunks))
      for (const plan of plans.filter((p) => p.encoding === encoding))
        expect({ sample: plan.sample, tokens: api.encode(plan.sample) }).toEqual({
          sample: plan.sample,
          tokens: plan.encoded,
        })
    }
  })
})
