import { describe, expect, it } from 'vitest'
import type { EventDraft } from '../../shared/protocol'
import type { ModelProvider, ModelRequest, TranscriptItem } from '../providers/types'
import { allTools } from '../tools/registry'
import { compactToolSpecs } from './compact-prompt'
import { cutToolOutput } from './cut'
import { ModelWindow } from './model-window'
import { tokenizerFor } from './tokens'

const count = tokenizerFor('qwen2.5-coder:7b')

/** A provider with a fixed window; any model call (a summary) is counted and answered. */
function provider(window: number): ModelProvider & { calls: number } {
  const p = {
    id: 'ollama' as const,
    model: 'qwen2.5-coder:7b',
    baseUrl: 'http://127.0.0.1:1',
    calls: 0,
    contextWindow: async () => window,
    async streamTurn() {
      p.calls += 1
      return { text: 'summary', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } }
    },
  }
  return p
}

/** About 2 MB of search_in_files output: 20,000 matches. */
function hugeSearchOutput(): string {
  const matches = Array.from({ length: 20_000 }, (_, i) => ({
    path: `src/module${i % 97}/file${i % 13}.ts`,
    line: i + 1,
    text: `  const value${i} = compute(${i}) // a line that mentions value and compute again`,
  }))
  return JSON.stringify({ ok: true, matches, count: matches.length })
}

function numberedFile(lines: number): string {
  const content = Array.from(
    { length: lines },
    (_, i) => `${i + 1}\tconst line${i + 1} = "some code on line ${i + 1}"`,
  ).join('\n')
  return JSON.stringify({
    ok: true,
    path: 'a.ts',
    total_lines: lines,
    start_line: 1,
    end_line: lines,
    content,
  })
}

describe('a huge tool result', () => {
  it('is cut with a marker saying how to narrow the search, and the request fits the window', async () => {
    const output = hugeSearchOutput()
    expect(output.length).toBeGreaterThan(2_000_000)
    const transcript: TranscriptItem[] = [
      { role: 'user', text: 'find every use of compute' },
      {
        role: 'assistant',
        text: '',
        toolCalls: [{ id: 'c1', name: 'search_in_files', arguments: '{"query":"compute"}' }],
      },
      { role: 'tool', callId: 'c1', name: 'search_in_files', output },
    ]
    const request: ModelRequest = {
      system: 'You are a coding agent.',
      transcript,
      tools: compactToolSpecs(allTools),
    }
    const events: EventDraft[] = []
    const model = provider(8192)
    const manager = new ModelWindow(
      model,
      (e) => events.push(e),
      () => {},
    )
    await manager.fit(request, new AbortController().signal)

    expect(manager.estimate(request)).toBeLessThanOrEqual(8192)
    // Cut to the compaction target, not just under the window: the next turns have room.
    expect(manager.estimate(request)).toBeLessThanOrEqual(Math.floor(8192 * 0.6))
    const result = transcript[2]
    if (result.role !== 'tool') throw new Error('expected the tool result in place')
    const cut = JSON.parse(result.output) as { matches: unknown[]; cut_to_fit: string; count: number }
    expect(cut.matches.length).toBeGreaterThan(10)
    expect(cut.matches.length).toBeLessThan(20_000)
    expect(cut.matches[0]).toEqual(JSON.parse(output).matches[0])
    expect(cut.cut_to_fit).toMatch(
      /^\[Cut to fit the context window: "matches" had 20000 entries; the first \d+ are shown/,
    )
    expect(cut.cut_to_fit).toMatch(/prefix/)
    expect(cut.cut_to_fit).toMatch(/glob/)
    expect(cut.cut_to_fit).toMatch(/limit_matches/)
    // The call and its answer still pair up; a short prefix was not worth a summary call.
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'tool'])
    expect(model.calls).toBe(0)
    expect(events).toEqual([expect.objectContaining({ type: 'context.compacted' })])
  })

  it('is capped when it enters the transcript, at half the window', async () => {
    const manager = new ModelWindow(
      provider(8192),
      () => {},
      () => {},
    )
    const call = { name: 'search_in_files', arguments: '{"query":"compute","glob":"*.ts"}' }
    const capped = await manager.capToolOutput(call, hugeSearchOutput())
    expect(count(capped)).toBeLessThanOrEqual(4096)
    expect(count(capped)).toBeGreaterThan(3000)
    expect(JSON.parse(capped).cut_to_fit).toMatch(/Narrow the search/)
    const small = '{"ok":true,"matches":[]}'
    expect(await manager.capToolOutput(call, small)).toBe(small)
  })
})

describe('cutToolOutput', () => {
  it('cuts a file at a line and says which start_line reads on', () => {
    const output = numberedFile(400)
    const cut = JSON.parse(
      cutToolOutput(output, { maxTokens: 1000, count }, { name: 'read_file', args: { path: 'a.ts' } }),
    )
    expect(count(JSON.stringify(cut))).toBeLessThanOrEqual(1000)
    const lines = (cut.content as string).split('\n')
    const last = Number(lines.at(-1)!.split('\t')[0])
    expect(lines.at(-1)).toBe(`${last}\tconst line${last} = "some code on line ${last}"`)
    expect(cut.end_line).toBe(last)
    expect(cut.total_lines).toBe(400)
    expect(cut.cut_to_fit).toContain(`start_line=${last + 1}`)
  })

  it("keeps the start and the end of a command's output, where the errors are", () => {
    const body = Array.from({ length: 3000 }, (_, i) => `step ${i} ok`).join('\n')
    const output = JSON.stringify({
      ok: false,
      error: 'exit 1',
      exit_code: 1,
      output: `${body}\nERROR: the last line`,
    })
    const cut = JSON.parse(
      cutToolOutput(output, { maxTokens: 600, count }, { name: 'run_command', args: { command: 'make' } }),
    )
    expect(count(JSON.stringify(cut))).toBeLessThanOrEqual(600)
    expect(cut.output).toMatch(/^step 0 ok\n/)
    expect(cut.output).toMatch(/\[… cut …\]/)
    expect(cut.output).toMatch(/ERROR: the last line$/)
    expect(cut).toMatchObject({ ok: false, error: 'exit 1', exit_code: 1 })
    expect(cut.cut_to_fit).toMatch(/tail|grep/)
  })

  it('wraps text that is not JSON, and leaves out what cannot fit at all', () => {
    const text = 'word '.repeat(5000)
    const cut = JSON.parse(cutToolOutput(text, { maxTokens: 300, count }, { name: 'mystery' }))
    expect(count(JSON.stringify(cut))).toBeLessThanOrEqual(300)
    expect(cut.text).toMatch(/^word word/)
    expect(cut.cut_to_fit).toMatch(/Ask for less/)

    const tiny = JSON.parse(
      cutToolOutput(hugeSearchOutput(), { maxTokens: 60, count }, { name: 'search_in_files' }),
    )
    expect(Object.keys(tiny)).toEqual(['ok', 'cut_to_fit'])
    expect(tiny.cut_to_fit).toMatch(/was left out\. Narrow the search/)
  })

  it('leaves a result that fits as it is', () => {
    const output = numberedFile(10)
    expect(cutToolOutput(output, { maxTokens: 5000, count }, { name: 'read_file' })).toBe(output)
  })
})

describe('the server prompt count', () => {
  const request = (): ModelRequest => ({
    system: 'system prompt '.repeat(50),
    transcript: [{ role: 'user', text: 'task '.repeat(200) }],
    tools: [],
  })

  it('is not trusted below our estimate (a prompt cache hit, or none at all)', () => {
    const manager = new ModelWindow(
      provider(8192),
      () => {},
      () => {},
    )
    const estimated = manager.estimate(request())
    expect(manager.calibrate(estimated, 120)).toEqual({ usedTokens: estimated, promptSource: 'estimated' })
    expect(manager.calibrate(estimated, 0)).toEqual({ usedTokens: estimated, promptSource: 'estimated' })
    // And it did not shrink later estimates.
    expect(manager.estimate(request())).toBe(estimated)
  })

  it('above our estimate is used, and later estimates follow it', () => {
    const manager = new ModelWindow(
      provider(8192),
      () => {},
      () => {},
    )
    const estimated = manager.estimate(request())
    const reported = Math.round(estimated * 1.3)
    expect(manager.calibrate(estimated, reported)).toEqual({ usedTokens: reported, promptSource: 'reported' })
    expect(manager.estimate(request())).toBeGreaterThan(estimated)
  })
})
