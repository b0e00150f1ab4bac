import { readToolCalls } from '../src/main/providers/toolcalls'
import { FAMILIES } from '../src/main/providers/toolcalls/families'
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

/**
 * Each family on its own opener, repeated with nothing ever closing: the shape that
 * made families rescan the rest of the text once per opener.
 */
const OPENERS: Record<string, string> = {
  hermes: '<tool_call>{"name": "x", ',
  json: '{"name": "a", "arguments": {',
  'qwen3-coder': '<function=x>\n<parameter=y>\n',
  mistral: '[TOOL_CALLS]x[ARGS]{',
  llama3: '<|python_tag|>{"name": "a", ',
  pythonic: '<|python_start|>[f(a=',
  gemma: '<|tool_call>call:x{a:',
  lfm2: '<|tool_call_start|>[f(a=',
  apertus: '<|tools_prefix|>[{',
  functionary: '>>>x\n{',
  functools: 'functools[{',
  nemotron: '<TOOLCALL>[{',
  xlam: '```json\n[{"name": ',
  internlm: '<|action_start|><|plugin|>\n{',
  'seed-oss': '<seed:tool_call>\n<function=x>\n',
  deepseek: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>x\n```json\n{',
  glm: '<tool_call>x\n<arg_key>a</arg_key><arg_value>',
  kimi: '<|tool_call_begin|>functions.x:0<|tool_call_argument_begin|>{',
  minimax: '<tool_calls>\n{"name": ',
  harmony: '<|channel|>commentary to=functions.x <|constrain|>json<|message|>{',
  'command-r': '<|START_ACTION|>[{',
  granite: '<|tool_call|>[{',
}

/** More openers where a family reads several shapes. */
const MORE_OPENERS: Array<[string, string]> = [
  ['gemma', '```tool_code\nf(\n'],
  ['gemma', '<start_function_call>call:x{a:<escape>'],
  ['minimax', '<minimax:tool_call><invoke name="x"><parameter name="a">'],
  ['functionary', '<function=x>{'],
  ['deepseek', '<｜DSML｜function_calls><｜DSML｜invoke name="x">'],
  ['deepseek', '<｜tool▁call▁begin｜>x<｜tool▁sep｜>{'],
  ['harmony', '<|start|>assistant<|channel|>final<|message|>'],
  ['pythonic', "[f(a='x"],
  ['pythonic', '<|python_start|>[f(a="x'],
  ['lfm2', '<|tool_call_start|>[f(a="x'],
  ['kimi', '<|tool_calls_section_begin|><|tool_call_begin|>functions.x:0<|tool_call_argument_begin|>{'],
]

function time(text: string, families = FAMILIES): number {
  const start = performance.now()
  readToolCalls(text, CORPUS_TOOLS, families)
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
  for (const [id, opener] of [...Object.entries(OPENERS), ...MORE_OPENERS]) {
    const family = FAMILIES.filter((f) => f.id === id)
    if (family.length === 0) throw new Error(`no family ${id}`)
    const repeat = (n: number): string => opener.repeat(Math.ceil(n / opener.length))
    const small = repeat(BASE)
    const large = repeat(BASE * 4)
    const { ours, reference } = await compare({
      runs: RUNS,
      ours: () => time(large, family),
      reference: () => time(small, family),
    })
    rows.push({
      name: `${id}: ${JSON.stringify(opener).slice(1, 40)}… repeated, ${Math.round(large.length / 1000)} KB`,
      unit: 'ms',
      ours: median(ours) * 1000,
      refName: `the same at ${Math.round(small.length / 1000)} KB`,
      reference: median(reference) * 1000,
      target: { maxRatio: 5, maxAbs: 100 },
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
