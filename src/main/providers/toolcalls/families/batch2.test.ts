import { describe, expect, it } from 'vitest'
import { CORPUS_TOOLS, loadCorpora } from '../../../../../test/toolcall-corpus'
import { readToolCalls } from '..'
import { maskReasoning } from '../reasoning'
import { checkCall } from '../schema-check'
import type { ToolCallFamily } from '../types'
import { commandR } from './command-r'
import { deepseek } from './deepseek'
import { glm } from './glm'
import { granite } from './granite'
import { harmony } from './harmony'
import { kimi } from './kimi'
import { minimax } from './minimax'

/*
 * The special-token families on their own: each corpus case read by its family alone
 * (on the text as index.ts hands it over, reasoning blanked), then the edges where
 * these families meet others (`<tool_call>` shared with Hermes) or reasoning.
 */

const BATCH: ToolCallFamily[] = [deepseek, glm, kimi, minimax, harmony, commandR, granite]
const corpora = new Map(loadCorpora().map((c) => [c.family, c]))

/** The family's calls, normalised and checked as index.ts does, in text order. */
function familyCalls(family: ToolCallFamily, text: string) {
  const result = family.parse(maskReasoning(text))
  const calls = result.spans
    .filter((s) => s.calls.length > 0)
    .sort((a, b) => a.start - b.start)
    .flatMap((s) => s.calls.map((c) => checkCall(c, CORPUS_TOOLS)))
  return { calls, result }
}

for (const family of BATCH) {
  describe(`${family.id} family`, () => {
    const corpus = corpora.get(family.id)
    it('has a corpus with cases, negatives and broken markup', () => {
      expect(corpus?.cases.length).toBeGreaterThanOrEqual(4)
      expect(corpus?.negatives.length).toBeGreaterThanOrEqual(2)
      expect(corpus?.broken.length).toBeGreaterThanOrEqual(2)
    })

    for (const c of corpus?.cases ?? []) {
      it(`reads: ${c.name}`, () => {
        expect(family.detect(c.text)).toBe(true)
        const { calls, result } = familyCalls(family, c.text)
        expect(result.broken).toEqual([])
        expect(calls.map((k) => (k.ok ? { name: k.name, arguments: k.arguments } : k.problem))).toEqual(
          c.calls,
        )
        // Special tokens are markup; Command R+'s `Action:` fence is JSON shown the usual way.
        for (const s of result.spans)
          expect(s.kind).toBe(c.text.slice(s.start, s.end).startsWith('Action:') ? 'json' : 'markup')
      })
    }

    for (const c of corpus?.broken ?? []) {
      it(`reports: ${c.name}`, () => {
        const { calls, result } = familyCalls(family, c.text)
        expect(calls.filter((k) => k.ok)).toEqual([])
        expect(result.broken.length).toBeGreaterThan(0)
        for (const b of result.broken) expect(b.problem).not.toBe('')
      })
    }

    it('finds nothing in plain prose', () => {
      const prose = 'I read the file and the tests pass. Nothing else to do: the change is in src/a.ts.'
      expect(family.detect(prose)).toBe(false)
      expect(family.parse(prose)).toEqual({ spans: [], broken: [] })
    })

    it('its repair example is itself a call the pipeline reads', () => {
      const found = readToolCalls(family.example, CORPUS_TOOLS)
      expect(found.calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
        ['read_file', { path: 'src/main.ts' }],
      ])
      expect(found.text).toBe('')
    })
  })
}

describe('edges', () => {
  it('glm and granite leave Hermes blocks (Granite 4, Qwen) to the hermes family', () => {
    const hermes = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>'
    expect(glm.parse(hermes)).toEqual({ spans: [], broken: [] })
    expect(granite.parse(hermes)).toEqual({ spans: [], broken: [] })
    expect(glm.parse('<tool_call> [{"name": "read_file", "arguments": {}}]')).toEqual({
      spans: [],
      broken: [],
    })
  })

  it('glm reads a bare name and arguments, Hermes-style JSON never', () => {
    const text =
      'Sure.<tool_call>read_file<arg_key>path</arg_key><arg_value>a.ts</arg_value></tool_call> Done.'
    const { spans } = glm.parse(text)
    expect(spans).toHaveLength(1)
    expect(text.slice(spans[0].start, spans[0].end)).toBe(
      '<tool_call>read_file<arg_key>path</arg_key><arg_value>a.ts</arg_value></tool_call>',
    )
  })

  it('harmony never takes a call from the analysis channel, even before reasoning is blanked', () => {
    const text =
      '<|start|>assistant<|channel|>analysis to=functions.run_command<|message|>{"command":"rm -rf /"}<|end|>' +
      '<|start|>assistant to=functions.run_command<|channel|>analysis<|message|>{"command":"rm -rf /"}<|end|>'
    expect(harmony.parse(text).spans.flatMap((s) => s.calls)).toEqual([])
    expect(harmony.parse(text).broken).toEqual([])
  })

  it('harmony marks the final channel header and terminator, so what is left is the answer', () => {
    const call =
      '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"a"}<|call|>'
    const text = `${call}<|start|>assistant<|channel|>final<|message|>Reading it now.<|return|>`
    const spans = harmony.parse(text).spans.sort((a, b) => a.start - b.start)
    let rest = ''
    let pos = 0
    for (const s of spans) {
      rest += text.slice(pos, s.start)
      pos = s.end
    }
    expect(rest + text.slice(pos)).toBe('Reading it now.')
    expect(spans.filter((s) => s.calls.length > 0)).toHaveLength(1)
  })

  it('harmony keeps a "<|call|>" inside a JSON string inside the arguments', () => {
    const text =
      '<|channel|>commentary to=functions.write_file<|message|>{"path":"t.md","content":"ends with <|call|> here"}<|call|>'
    const { spans } = harmony.parse(text)
    expect(spans[0].calls[0].arguments).toEqual({ path: 't.md', content: 'ends with <|call|> here' })
    expect(spans[0].end).toBe(text.length)
  })

  it('command-r runs nothing written inside the thinking, even before reasoning is blanked', () => {
    const action =
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "git_status", "parameters": {}}]<|END_ACTION|>'
    expect(commandR.parse(`<|START_THINKING|>maybe ${action} later<|END_THINKING|>No.`).spans).toEqual([])
    expect(commandR.parse(`<|START_THINKING|>cut off while thinking ${action}`).spans).toEqual([])
    expect(commandR.parse(`plan<|END_THINKING|>${action}`).spans).toHaveLength(1)
  })

  it('deepseek spans cover the whole section and the end-of-sentence token after it', () => {
    const section =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>git_status<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>'
    const { spans } = deepseek.parse(`Checking.${section}`)
    expect(spans).toHaveLength(1)
    expect(spans[0]).toMatchObject({ start: 'Checking.'.length, end: `Checking.${section}`.length })
  })

  it('kimi and deepseek read a call written without its section tokens', () => {
    const k = kimi.parse(
      '<|tool_call_begin|>functions.git_status:0<|tool_call_argument_begin|>{}<|tool_call_end|>',
    )
    expect(k.spans.map((s) => s.calls)).toEqual([[{ name: 'functions.git_status:0', arguments: {} }]])
    const d = deepseek.parse('<｜tool▁call▁begin｜>git_status<｜tool▁sep｜>{}<｜tool▁call▁end｜>')
    expect(d.spans.map((s) => s.calls)).toEqual([[{ name: 'git_status', arguments: {} }]])
  })

  it('a block never closed stops at the next block instead of swallowing it', () => {
    const good = '<invoke name="git_status"></invoke></minimax:tool_call>'
    const m = minimax.parse(`<minimax:tool_call><invoke name="read_file">cut<minimax:tool_call>${good}`)
    expect(m.broken).toHaveLength(1)
    expect(m.spans.map((s) => s.calls)).toEqual([[{ name: 'git_status', arguments: {} }]])
    const action =
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "git_status", "parameters": {}}]<|END_ACTION|>'
    const c = commandR.parse(`<|START_ACTION|>[{"tool_call_id": "0", ${action}`)
    expect([c.broken.length, c.spans.length]).toEqual([1, 1])
    const call = '<|tool_call_begin|>functions.git_status:0<|tool_call_argument_begin|>{}<|tool_call_end|>'
    const k = kimi.parse(
      `<|tool_calls_section_begin|>junk<|tool_calls_section_begin|>${call}<|tool_calls_section_end|>`,
    )
    expect([k.broken.length, k.spans.length]).toEqual([1, 1])
  })

  it('one unreadable call makes the whole block a repair, so half a batch never runs', () => {
    const text =
      '<minimax:tool_call><invoke name="read_file"><parameter name="path">a</parameter></invoke>' +
      '<invoke><parameter name="path">b</parameter></invoke></minimax:tool_call>'
    expect(minimax.parse(text)).toMatchObject({ spans: [], broken: [{ start: 0, end: text.length }] })
  })
})
