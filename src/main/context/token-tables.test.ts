import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { GptEncoding } from 'gpt-tokenizer/GptEncoding'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { builtTablePath, ENCODINGS, libraryTable, rankTable, tableJson, type Encoding } from './token-tables'

/*
 * The rank tables a session counts with: the JSON the build writes holds the library's table
 * exactly, a session finds it beside the bundle (or one folder up, from chunks/) and passes over
 * one of another version or a damaged one. The encoder on the JSON table is held to tiktoken's
 * own answers: the test plans gpt-tokenizer ships (data/TestPlans.txt, each sample encoded by
 * OpenAI's Python tiktoken).
 */

let tmp: string
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stepwise-token-tables-'))
})
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** A bundle folder (`main/`) with `chunks/` under it and the build's tables beside it. */
function bundleWithTables(tables: Partial<Record<string, string>>): { main: string; chunks: string } {
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
  it("writes each encoding's table as JSON that reads back as the library's table", () => {
    for (const encoding of ENCODINGS) {
      const table = libraryTable(encoding)
      expect(table.length).toBeGreaterThan(100_000)
      expect(JSON.parse(tableJson(encoding))).toEqual(table)
    }
  })

  it('reads the built table beside the bundle, or one folder up from chunks/', () => {
    const tiny = JSON.stringify(['a', 'b', [255]])
    const { main, chunks } = bundleWithTables({ [builtTablePath('o200k_base')]: tiny })
    expect(rankTable('o200k_base', main)).toEqual(['a', 'b', [255]])
    expect(rankTable('o200k_base', chunks)).toEqual(['a', 'b', [255]])
    // No file for the other encoding: the library's table.
    expect(rankTable('cl100k_base', main)).toEqual(libraryTable('cl100k_base'))
  })

  it("passes over another version's table and a damaged one, for the library's", () => {
    const other = builtTablePath('o200k_base').replace(/gpt-tokenizer-[^-]+-/, 'gpt-tokenizer-0.0.1-')
    const cut = bundleWithTables({
      [other]: JSON.stringify(['a']),
      [builtTablePath('cl100k_base')]: '["a", "b",',
    })
    expect(rankTable('o200k_base', cut.main)).toEqual(libraryTable('o200k_base'))
    expect(rankTable('cl100k_base', cut.main)).toEqual(libraryTable('cl100k_base'))
    // JSON, but not a table: a number where a token belongs, a gap.
    fs.writeFileSync(path.join(cut.main, builtTablePath('cl100k_base')), '["a", 7]')
    expect(rankTable('cl100k_base', cut.main)).toEqual(libraryTable('cl100k_base'))
    fs.writeFileSync(path.join(cut.main, builtTablePath('cl100k_base')), '["a", null]')
    expect(rankTable('cl100k_base', cut.main)).toEqual(libraryTable('cl100k_base'))
  })

  it("counts as tiktoken does on gpt-tokenizer's test plans, from the built JSON", () => {
    const { chunks } = bundleWithTables(
      Object.fromEntries(ENCODINGS.map((e) => [builtTablePath(e), tableJson(e)])),
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
