import { describe, expect, it } from 'vitest'
import { CORPUS_TOOLS, loadCorpora } from '../../../../test/toolcall-corpus'
import { applyTextToolCalls, readToolCalls } from '.'
import { FAMILIES } from './families'

/*
 * Every corpus in test/fixtures/toolcalls/ (other families' files are picked up as
 * they appear): each case yields exactly its calls, each negative runs nothing and
 * keeps the text byte for byte, each broken case asks the model for a repair.
 */

const usage = { inputTokens: 0, outputTokens: 0 }
const parsedArgs = (calls: Array<{ name: string; arguments: string }>) =>
  calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) as unknown }))

for (const corpus of loadCorpora()) {
  describe(`${corpus.file} (${corpus.family})`, () => {
    it('names its sources and every case its source', () => {
      expect(corpus.sources.length).toBeGreaterThan(0)
      for (const c of [...corpus.cases, ...corpus.negatives, ...corpus.broken])
        expect(c.source, c.name).toBeTruthy()
    })

    if (corpus.family !== 'false-positives') {
      it('its family is registered', () => {
        expect(FAMILIES.map((f) => f.id)).toContain(corpus.family)
      })
    }

    for (const c of corpus.cases) {
      it(`calls: ${c.name}`, () => {
        const result = readToolCalls(c.text, CORPUS_TOOLS)
        expect(parsedArgs(result.calls)).toEqual(c.calls)
        // A case may pair a good call with unreadable markup: the good one runs, the rest is reported.
        if (c.partlyBroken) expect(result.broken.length).toBeGreaterThan(0)
        else expect(result.broken).toEqual([])
        if (c.content !== undefined) expect(result.text).toBe(c.content)
      })
    }

    for (const c of corpus.negatives) {
      it(`runs nothing: ${c.name}`, () => {
        const turn = applyTextToolCalls({ text: c.text, toolCalls: [], usage }, CORPUS_TOOLS)
        expect(turn.toolCalls).toEqual([])
        expect(turn.text).toBe(c.text)
        // A well-formed call inside prose is not dropped either: the model is asked once whether
        // it meant it (nothing runs without its reply). No other repair is asked for.
        if (turn.toolCallRepair) {
          expect(turn.toolCallRepair.kind).toBe('in-prose')
          expect(c.text).toContain(turn.toolCallRepair.format)
        }
      })
    }

    for (const c of corpus.broken) {
      it(`asks for a repair: ${c.name}`, () => {
        const turn = applyTextToolCalls({ text: c.text, toolCalls: [], usage }, CORPUS_TOOLS)
        expect(turn.toolCalls).toEqual([])
        expect(turn.text).toBe(c.text)
        expect(turn.toolCallRepair?.format).toBeTruthy()
        if (c.problem) expect(turn.toolCallRepair?.problem).toContain(c.problem)
      })
    }
  })
}
