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
  const ranges: Region[] = []
  for (const block of BLOCKS) {
    let from = 0
    if (block.unopenedAtStart) {
      const firstOpen = search(text, block.open, 0)
      const firstClose = search(text, block.close, 0)
      if (firstClose && (!firstOpen || firstClose.index < firstOpen.index)) {
        ranges.push({ start: 0, end: firstClose.end })
        from = firstClose.end
      }
    }
    for (;;) {
      const open = search(text, block.open, from)
      if (!open) break
      // An unclosed block (the model was cut off while thinking) runs to the end.
      const close = search(text, block.close, open.end)
      const end = close ? close.end : text.length
      ranges.push({ start: open.index, end })
      from = Math.max(end, open.end)
    }
  }
  return blankRegions(text, ranges)
}

function search(text: string, re: RegExp, from: number): { index: number; end: number } | undefined {
  const g = new RegExp(re.source, 'g')
  g.lastIndex = from
  const m = g.exec(text)
  return m ? { index: m.index, end: m.index + m[0].length } : undefined
}
