import { blankRegions, type Region } from './regions'

/*
 * Reasoning a model wrote into its answer. A call it considered while thinking is
 * not a call it made, so these stretches are blanked before any family parses the
 * text. Blanking (not cutting) keeps every offset valid for the original text.
 */

interface Block {
  open: RegExp
  close: RegExp
  /** A close tag with no opener at the start counts from offset 0 (chat templates that put the opener in the prompt). */
  unopenedAtStart?: boolean
}

const BLOCKS: Block[] = [
  // DeepSeek-R1, Qwen3, QwQ, GLM, MiniMax…; Qwen3/R1 templates open the block in the prompt.
  // Hy4 suffixes the tags (`<think:opensource>`).
  { open: /<think(?:ing)?(?::[\w.-]+)?>/, close: /<\/think(?:ing)?(?::[\w.-]+)?>/, unopenedAtStart: true },
  // ByteDance Seed-OSS.
  { open: /<seed:think>/, close: /<\/seed:think>/, unopenedAtStart: true },
  // Kimi (◁think▷ … ◁/think▷).
  { open: /◁think▷/, close: /◁\/think▷/, unopenedAtStart: true },
  // Magistral.
  { open: /\[THINK\]/, close: /\[\/THINK\]/, unopenedAtStart: true },
  // Gemma 4 (`<|channel>thought\n…<channel|>`, Ollama's model/parsers/gemma4.go); the channel
  // carries no other name in practice, so any channel is reasoning.
  { open: /<\|channel>/, close: /<channel\|>/ },
  // MiniMax-M3 (`<mm:think>`; a turn without reasoning starts with a bare `</mm:think>`).
  { open: /<mm:think>/, close: /<\/mm:think>/, unopenedAtStart: true },
  // Apriel 1.6: the template opens the reasoning; the answer starts after [BEGIN FINAL RESPONSE].
  { open: /Here are my reasoning steps:\n/, close: /\[BEGIN FINAL RESPONSE\]/, unopenedAtStart: true },
  // Solar Open 2 (vLLM's solar_open2 tests: `<|think:start|>…<|think:end|>` before the answer).
  { open: /<\|think:start\|>/, close: /<\|think:end\|>/, unopenedAtStart: true },
  // K2 Horizon / K2-V3 (SGLang's k2v3 tests): `<ifm|think>`, `<ifm|think_fast>`, `<ifm|think_faster>`.
  { open: /<ifm\|think(?:_fast|_faster)?>/, close: /<\/ifm\|think(?:_fast|_faster)?>/ },
  // Inkling's thinking block, ended by its message terminator.
  { open: /<\|content_thinking\|>/, close: /<\|end_message\|>|<\|content_model_end_sampling\|>/ },
  // Kimi K3's think channel; its template may open it in the prompt.
  { open: /<\|open\|>think<\|sep\|>/, close: /<\|close\|>think<\|sep\|>/, unopenedAtStart: true },
  // Glimmer: a message to itself, to its terminator or the next message.
  { open: /to=self<\|message\|>/, close: /<\|eo[mt]\|>|(?=<\|start\|>)/ },
  // Harmony (gpt-oss): the analysis channel runs to its <|end|>, or to the next message or channel.
  {
    open: /(?:<\|start\|>assistant)?<\|channel\|>\s*analysis\b/,
    close: /<\|end\|>|(?=<\|start\|>|<\|channel\|>)/,
  },
]

/** The text with every reasoning stretch replaced by spaces (newlines kept), same length. */
export function maskReasoning(text: string): string {
  // A raw transcript shown in a fence (`\`\`\`\nthinking</think><tool_call>…\`\`\``) is not this answer's reasoning.
  const fences = closedFences(text)
  const ranges: Region[] = []
  for (const block of BLOCKS) {
    let from = 0
    // A close tag with no open before it: the prompt opened the block. Nested pairs inside
    // it (`I think <think>x</think> more</think>answer`) do not end it early.
    const stray = block.unopenedAtStart ? unmatchedClose(text, block, 0, fences) : undefined
    if (stray !== undefined) {
      ranges.push({ start: 0, end: stray })
      from = stray
    }
    for (;;) {
      const open = search(text, block.open, from, fences)
      if (!open) break
      // An unclosed block (the model was cut off while thinking) runs to the end.
      const end = unmatchedClose(text, block, open.end, fences) ?? text.length
      ranges.push({ start: open.index, end })
      from = Math.max(end, open.end)
    }
  }
  return blankRegions(text, ranges)
}

/** The end of the first close tag after `from` that no open after `from` matches. */
function unmatchedClose(
  text: string,
  block: Block,
  from: number,
  fences: readonly Region[],
): number | undefined {
  let depth = 0
  let pos = from
  let open = search(text, block.open, pos, fences)
  for (;;) {
    const close = search(text, block.close, pos, fences)
    if (!close) return undefined
    if (open && open.index < close.index) {
      depth++
      pos = open.end
      open = search(text, block.open, pos, fences)
      continue
    }
    if (depth === 0) return close.end
    depth--
    pos = Math.max(close.end, close.index + 1)
    if (open && open.index < pos) open = search(text, block.open, pos, fences)
  }
}

/** Closed fenced blocks (``` or ~~~): reasoning tags inside them are shown, not used. */
function closedFences(text: string): Region[] {
  if (!text.includes('```') && !text.includes('~~~')) return []
  const out: Region[] = []
  let open: { index: number; marker: string } | undefined
  for (const m of text.matchAll(/^ {0,3}(`{3,}|~{3,})[^\n]*$/gm)) {
    if (!open) open = { index: m.index, marker: m[1] }
    else if (m[1][0] === open.marker[0] && m[1].length >= open.marker.length && m[0].trim() === m[1]) {
      // The body only: a tag on the fence's own lines (`\`\`\`</think>`) still counts.
      out.push({ start: text.indexOf('\n', open.index) + 1, end: m.index })
      open = undefined
    }
  }
  return out
}

/** The first match of `re` from `from` that is not inside a closed fence. */
function search(
  text: string,
  re: RegExp,
  from: number,
  fences: readonly Region[],
): { index: number; end: number } | undefined {
  const g = new RegExp(re.source, 'g')
  g.lastIndex = from
  for (let m = g.exec(text); m; m = g.exec(text)) {
    const at = m.index
    if (!fences.some((f) => f.start <= at && at < f.end)) return { index: at, end: at + m[0].length }
    if (m[0] === '') g.lastIndex++
  }
  return undefined
}
