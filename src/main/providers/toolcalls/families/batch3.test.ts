import { describe, expect, it } from 'vitest'
import { CORPUS_TOOLS, loadCorpora } from '../../../../../test/toolcall-corpus'
import { maskReasoning } from '../reasoning'
import { codeRegions } from '../regions'
import { checkCall } from '../schema-check'
import type { ToolCallFamily } from '../types'
import { apertus } from './apertus'
import { functionary } from './functionary'
import { functools } from './functools'
import { gemma } from './gemma'
import { internlm } from './internlm'
import { lfm2 } from './lfm2'
import { nemotron } from './nemotron'
import { parsePyCalls } from '../python-literal'
import { seedOss } from './seed-oss'
import { xlam } from './xlam'

/*
 * Each family on its own corpus, without the orchestrator: every case's calls come
 * out of this family alone (checked against the real tool schemas), negatives give no
 * span, broken cases give a broken span and no call. The shared corpus test runs the
 * same files through the whole pipeline.
 */

const BATCH3: ToolCallFamily[] = [
  gemma,
  lfm2,
  apertus,
  functionary,
  functools,
  nemotron,
  xlam,
  internlm,
  seedOss,
]
const corpora = new Map(loadCorpora().map((c) => [c.family, c]))

for (const family of BATCH3) {
  const corpus = corpora.get(family.id)
  describe(`${family.id} on its corpus`, () => {
    it('has a corpus with cases, negatives and broken markup', () => {
      expect(corpus?.cases.length).toBeGreaterThan(3)
      expect(corpus?.negatives.length).toBeGreaterThan(0)
      expect(corpus?.broken.length).toBeGreaterThan(0)
    })
    for (const c of corpus?.cases ?? []) {
      it(`reads: ${c.name}`, () => {
        const text = maskReasoning(c.text)
        expect(family.detect(text)).toBe(true)
        const { spans, broken } = family.parse(text)
        expect(broken).toEqual([])
        const checked = spans.flatMap((s) => s.calls).map((call) => checkCall(call, CORPUS_TOOLS))
        expect(checked.map((r) => (r.ok ? { name: r.name, arguments: r.arguments } : r.problem))).toEqual(
          c.calls,
        )
        for (const s of spans) {
          // A span never reaches into reasoning: it lies where the masked text is unchanged.
          expect(c.text.slice(s.start, s.end)).toBe(text.slice(s.start, s.end))
          expect(s.end).toBeGreaterThan(s.start)
        }
      })
    }
    for (const c of corpus?.negatives ?? []) {
      it(`finds no call outside code shown in prose: ${c.name}`, () => {
        const text = maskReasoning(c.text)
        const spans = family.detect(text) ? family.parse(text).spans : []
        const regions = codeRegions(text)
        const outside = spans.filter((s) => !regions.some((r) => r.start <= s.start && s.end <= r.end))
        expect(outside).toEqual([])
      })
    }
    for (const c of corpus?.broken ?? []) {
      it(`reports broken: ${c.name}`, () => {
        const text = maskReasoning(c.text)
        expect(family.detect(text)).toBe(true)
        const { spans, broken } = family.parse(text)
        expect(spans).toEqual([])
        expect(broken.length).toBeGreaterThan(0)
        if (c.problem) expect(broken.map((b) => b.problem).join(' ')).toContain(c.problem)
      })
    }
  })
}

describe('spans cover exactly the markup', () => {
  it('gemma 4: from the opening token to the closing one, text around left out', () => {
    const text = 'Before <|tool_call>call:git_status{}<tool_call|> after'
    const [span] = gemma.parse(text).spans
    expect(text.slice(span.start, span.end)).toBe('<|tool_call>call:git_status{}<tool_call|>')
    expect(span.kind).toBe('markup')
  })

  it('gemma: a call considered in the thinking channel is not read, the one after it is', () => {
    const text =
      '<|channel>thought\ncall:read_file{path:<|"|>a<|"|>}\n<channel|>call:read_file{path:<|"|>b<|"|>}'
    const { spans } = gemma.parse(maskReasoning(text))
    expect(spans.map((s) => s.calls[0].arguments)).toEqual([{ path: 'b' }])
  })

  it('gemma: a bare call line without special quotes is plain JSON-like text for the act rule', () => {
    const [span] = gemma.parse('call:list_files{limit:5}').spans
    expect(span.kind).toBe('json')
  })

  it('gemma 3: print(default_api.…) is unwrapped, the name kept as written', () => {
    const text = '```tool_code\nprint(default_api.read_file(path="a.ts"))\n```'
    expect(gemma.parse(text).spans[0].calls).toEqual([
      { name: 'default_api.read_file', arguments: { path: 'a.ts' } },
    ])
  })

  it('seed-oss: a block inside <seed:think> is never read, even when the reasoning was not removed', () => {
    const think =
      '<seed:think>plan: <seed:tool_call><function=git_status></function></seed:tool_call></seed:think>'
    const call =
      '<seed:tool_call>\n<function=read_file>\n<parameter=path>a</parameter>\n</function>\n</seed:tool_call>'
    const [span, ...rest] = seedOss.parse(think + call).spans
    expect(rest).toEqual([])
    expect(span.start).toBe(think.length)
    expect(span.end).toBe(think.length + call.length)
  })

  it('seed-oss: without the closing tag the block ends at its last </function>', () => {
    const call = '<seed:tool_call>\n<function=git_status>\n</function>'
    const [span] = seedOss.parse(call + '\nDone.').spans
    expect(span.end).toBe(call.length)
  })

  it('functionary: a Qwen3-Coder body is left to the qwen3-coder family', () => {
    const text = '<function=read_file>\n<parameter=path>a</parameter>\n</function>'
    expect(functionary.parse(text)).toEqual({ spans: [], broken: [] })
  })

  it('functionary: <|python_tag|> code is a call to the python tool, a JSON body is not ours', () => {
    expect(functionary.parse("<|python_tag|>print('hey')<|eom_id|>").spans[0].calls).toEqual([
      { name: 'python', arguments: { code: "print('hey')" } },
    ])
    expect(
      functionary.parse('<|python_tag|>{"name": "read_file", "parameters": {"path": "a"}}').spans,
    ).toEqual([])
  })

  it('functools: the word inside an identifier is not a marker', () => {
    expect(functools.parse('my_functools[{"name": "git_status", "arguments": {}}]').spans).toEqual([])
  })

  it('xlam: a bare list is json, a wrapped one markup', () => {
    const list = '[{"name": "git_status", "arguments": {}}]'
    expect(xlam.parse(list).spans.map((s) => s.kind)).toEqual(['json'])
    expect(xlam.parse('[TOOL_CALLS]' + list).spans.map((s) => s.kind)).toEqual(['markup'])
  })

  it('lfm2 and nemotron: an empty list is no call and nothing to repair', () => {
    expect(lfm2.parse('<|tool_call_start|>[ ]<|tool_call_end|>')).toEqual({ spans: [], broken: [] })
    expect(nemotron.parse('<TOOLCALL>[]</TOOLCALL>')).toEqual({ spans: [], broken: [] })
  })

  it('internlm: an interpreter block is not a tool call', () => {
    expect(internlm.parse("<|action_start|><|interpreter|>\nprint('hi')<|action_end|>")).toEqual({
      spans: [],
      broken: [],
    })
  })

  it('no family of the batch claims plain prose', () => {
    const prose =
      'I read src/a.ts: it exports read_file(path) and calls list_files() twice.\n\nNothing to change.'
    for (const family of BATCH3) {
      expect(family.detect(prose) ? family.parse(prose) : { spans: [], broken: [] }).toEqual({
        spans: [],
        broken: [],
      })
    }
  })
})

describe('Python calls', () => {
  it('reads sets as lists, tuples as lists, triple-quoted strings and negative numbers', () => {
    const r = parsePyCalls(`[f(a={'x', 'y'}, b=(1, -2.5), c="""two\nlines""", d={'k': [None]})]`, 0)
    expect(r).toEqual({
      ok: true,
      end: 66,
      calls: [{ name: 'f', arguments: { a: ['x', 'y'], b: [1, -2.5], c: 'two\nlines', d: { k: [null] } } }],
    })
  })

  it('says why a call cannot be read', () => {
    expect(parsePyCalls('[f(x=)]', 0)).toMatchObject({ ok: false })
    expect(parsePyCalls('[f(1)]', 0)).toMatchObject({
      ok: false,
      error: 'arguments must be named, like read_file(path="src/a.ts")',
    })
    expect(parsePyCalls('not a call', 0)).toMatchObject({ ok: false })
  })
})
