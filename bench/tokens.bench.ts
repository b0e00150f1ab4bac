import { countTokens } from 'gpt-tokenizer'
import { linearCount } from '../src/main/context/tokens'
import { codeLines, prng } from './tree'
import { isMain, median, report, type BenchRow } from './util'

/*
 * Token counting on adversarial text (context/tokens.ts#linearCount): time per MB of inputs whose
 * BPE cost was quadratic — a run of one letter, of spaces, of punctuation, a base64 blob without
 * line breaks — against ordinary code of the same size counted in the same run (the reference),
 * and whether the cost stays linear from 64 KB to 1 MB. One row also counts 16 KB of one letter
 * with the tokenizer alone, the cost before.
 */

const count = linearCount(countTokens)
const SIZES = [64 * 1024, 256 * 1024, 1024 * 1024]
const RUNS = 5

function base64Blob(bytes: number, seed: number): string {
  const rnd = prng(0xb64 + seed)
  return Buffer.from(Array.from({ length: Math.ceil(bytes * 0.75) }, () => Math.floor(rnd() * 256))).toString(
    'base64',
  )
}

/**
 * Each timed run counts a text of its own (`variant`): the tokenizer caches what it has counted,
 * and a second count of the same text would measure the cache.
 */
const INPUTS: Record<string, (n: number, variant: number) => string> = {
  'one letter': (n, v) => LETTERS[v % LETTERS.length].repeat(n),
  'white space': (n, v) => ' \t\n\r'.repeat(8)[v % 32].repeat(n - 1) + '\u00a0',
  punctuation: (n, v) => '=-+*/<>!?'.slice(v % 8, (v % 8) + 2).repeat(n / 2),
  'base64, one line': (n, v) => base64Blob(n, v).slice(0, n),
}
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'

function code(n: number, variant: number): string {
  let text = ''
  for (const line of codeLines(0x70c + variant, Math.ceil(n / 20))) {
    text += line + '\n'
    if (text.length >= n) break
  }
  return text.slice(0, n)
}

/** The median ms of counting RUNS texts made by `make(variant)` (made outside the timing). */
function msPer(make: (variant: number) => string, counter: (text: string) => number = count): number {
  const times: number[] = []
  for (let v = 0; v < RUNS; v++) {
    const text = make(v + 1 + seq++)
    const t = performance.now()
    counter(text)
    times.push(performance.now() - t)
  }
  return median(times)
}
let seq = 0

export function benchTokens(): BenchRow[] {
  const rows: BenchRow[] = []
  const MB = 1024 * 1024
  count(code(64 * 1024, 0)) // the tables load once, outside the timings
  const reference = msPer((v) => code(MB, v)) // ms for 1 MB of code
  for (const [name, make] of Object.entries(INPUTS)) {
    const perMb = SIZES.map((size) => (msPer((v) => make(size, v)) * MB) / size)
    rows.push({
      name: `${name}: 1 MB`,
      unit: 'ms',
      ours: perMb[2],
      refName: 'ordinary code, 1 MB',
      reference,
      target: { maxRatio: 3, maxAbs: 1000 },
    })
    rows.push({
      name: `${name}: ms per MB at 1 MB ÷ at 64 KB (linear: ≤ 1 plus noise)`,
      unit: 'count',
      ours: perMb[2] / perMb[0],
      target: { maxAbs: 3 },
    })
  }
  const oneLetter = (v: number) => LETTERS[v % LETTERS.length].repeat(16 * 1024)
  rows.push({
    name: 'one letter, 16 KB',
    unit: 'ms',
    ours: msPer(oneLetter),
    refName: 'the tokenizer alone',
    reference: msPer(oneLetter, countTokens),
  })
  return rows
}

if (isMain(import.meta)) report('Token counting on adversarial text', benchTokens())
