import { describe, expect, it } from 'vitest'
import { CORPUS_TOOL_NAMES, loadCorpora } from '../../../../test/toolcall-corpus'
import { spotToolNames } from './spot'

/*
 * A call written as text names its tool before the answer is whole: the agent starts what a
 * command needs from there (agent/tool-runner.ts `noticeText`). Checked on every corpus case of
 * test/fixtures/toolcalls (real model outputs, each citing its source) that writes its first
 * call's tool by its name (not an alias such as `create_file`: aliases are not spotted, since
 * `bash` or `shell` would be at every code fence), streamed in 1–7-character pieces.
 */

/** `text` in pieces of 1–7 characters, the same pieces every run. */
function pieces(text: string): string[] {
  const out: string[] = []
  let seed = 7
  for (let at = 0; at < text.length;) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    const size = 1 + (seed % 7)
    out.push(text.slice(at, at + size))
    at += size
  }
  return out
}

/** Every name spotted, streaming `text` in pieces. */
function spotAll(names: readonly string[], text: string): string[] {
  const spotter = spotToolNames(names)
  return pieces(text).flatMap((piece) => spotter.push(piece) ?? [])
}

describe('spotting a tool named in streamed text', () => {
  const cases = loadCorpora().flatMap((corpus) =>
    corpus.cases
      .filter((c) => c.calls.length > 0 && c.text.includes(c.calls[0].name))
      .map((c) => ({ ...c, family: corpus.family })),
  )

  it('has corpus cases from many format families', () => {
    expect(new Set(cases.map((c) => c.family)).size).toBeGreaterThan(30)
  })

  for (const c of cases) {
    it(`${c.family}: ${c.name}`, () => {
      const first = c.calls[0].name
      expect(spotAll([first], c.text)).toContain(first)
    })
  }

  it('takes a name only as a whole word, judged once the next character has come', () => {
    const names = ['run_command', 'build']
    const spotted = (text: string) => spotAll(names, text)
    expect(spotted('rerun_command run_commands build.sh build-all builds my_build')).toEqual([])
    expect(spotted('[build(target="x")] then {"name": "run_command"}')).toEqual(['build', 'run_command'])
    expect(spotted('functions.run_command:0')).toEqual(['run_command'])
    // Nothing after it yet: not judged.
    expect(spotToolNames(names).push('call build')).toBeUndefined()
  })

  it('answers each name once, however the text is cut', () => {
    const text = '<tool_call>\n{"name": "run_command", "arguments": {"command": "npm test"}}\n</tool_call>'
    for (let cut = 1; cut < text.length; cut++) {
      const spotter = spotToolNames(CORPUS_TOOL_NAMES)
      const found = [spotter.push(text.slice(0, cut)), spotter.push(text.slice(cut))].filter(Boolean)
      expect(found, `cut at ${cut}`).toEqual(['run_command'])
    }
  })
})
