import { readToolCalls } from '../src/main/providers/toolcalls'
import { CORPUS_TOOLS, loadCorpora } from '../test/toolcall-corpus'
import { compare, isMain, median, report, type BenchRow } from './util'

/*
 * Text tool calls (src/main/providers/toolcalls): every model answer without native
 * calls goes through the pipeline, so it must stay linear on answers built to hurt a
 * parser — thousands of unclosed tags, unbalanced braces, backticks. Each row times an
 * answer four times as long as its reference: linear work gives a ratio near 4, a
 * quadratic one near 16. The corpus row is context: every corpus case, once.
 */

const RUNS = 7
const BASE = 40_000

/** Hostile answers of about `n` characters. */
const HOSTILE: Record<string, (n: number) => string> = {
  'unclosed <tool_call> with JSON': (n) => '<tool_call>{"name": "x", '.repeat(n / 25),
  'unbalanced braces with "name":': (n) => '{"name": "a", '.repeat(n / 14),
  'unopened </tool_call> after braces': (n) => '{ '.repeat(n / 2) + '}</tool_call>',
  '[TOOL_CALLS] tokens': (n) => '[TOOL_CALLS]'.repeat(n / 12) + 'a{',
  '<function= tags of an unknown tool': (n) => '<function=x>\n<parameter=y>\n'.repeat(n / 27),
  'inline code and a fence': (n) => '`a` ``b`` '.repeat(n / 20) + '```\n' + '{ "x": [1] }\n'.repeat(n / 26),
  'Hermes calls, all valid': (n) =>
    '<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>\n'.repeat(n / 73),
}

function time(text: string): number {
  const start = performance.now()
  readToolCalls(text, CORPUS_TOOLS)
  return (performance.now() - start) / 1000
}

export async function benchToolCalls(): Promise<BenchRow[]> {
  const rows: BenchRow[] = []
  for (const [name, make] of Object.entries(HOSTILE)) {
    const small = make(BASE)
    const large = make(BASE * 4)
    const { ours, reference } = await compare({
      runs: RUNS,
      ours: () => time(large),
      reference: () => time(small),
    })
    rows.push({
      name: `${name}, ${Math.round(large.length / 1000)} KB`,
      unit: 'ms',
      ours: median(ours) * 1000,
      refName: `the same at ${Math.round(small.length / 1000)} KB`,
      reference: median(reference) * 1000,
      target: { maxRatio: 8, maxAbs: 1000 },
    })
  }
  const texts = loadCorpora().flatMap((c) => [...c.cases, ...c.negatives, ...c.broken].map((x) => x.text))
  const { ours, reference } = await compare({
    runs: RUNS,
    ours: () => texts.forEach((t) => readToolCalls(t, CORPUS_TOOLS)),
    reference: () => texts.forEach((t) => JSON.stringify(JSON.parse(JSON.stringify({ t })))),
  })
  rows.push({
    name: `every corpus text once (${texts.length})`,
    unit: 'ms',
    ours: median(ours) * 1000,
    refName: 'JSON round trip of the same texts',
    reference: median(reference) * 1000,
    note: 'context',
  })
  return rows
}

if (isMain(import.meta)) report('text tool calls: linear on hostile answers', await benchToolCalls())
