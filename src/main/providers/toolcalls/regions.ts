/*
 * Where in an answer a call may be an example rather than an act: code shown in
 * prose (fenced blocks, inline code), and JSON that sits inside an explanation.
 */

export interface Region {
  start: number
  end: number
}

/** The text with every region replaced by spaces (newlines kept): same length, so offsets stay valid. */
export function blankRegions(text: string, regions: readonly Region[]): string {
  if (regions.length === 0) return text
  const chars = text.split('')
  for (const r of regions) for (let i = r.start; i < r.end; i++) if (chars[i] !== '\n') chars[i] = ' '
  return chars.join('')
}

/** Fenced blocks (``` or ~~~, to their closing fence or the end) and inline code spans. */
export function codeRegions(text: string): Region[] {
  const regions: Region[] = []
  const fence = /^ {0,3}(`{3,}|~{3,})[^\n]*$/gm
  let open: { index: number; marker: string } | undefined
  for (const m of text.matchAll(fence)) {
    const marker = m[1]
    if (!open) open = { index: m.index, marker }
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && m[0].trim() === marker) {
      regions.push({ start: open.index, end: m.index + m[0].length })
      open = undefined
    }
  }
  if (open) regions.push({ start: open.index, end: text.length })
  // Inline code, outside the fenced blocks: `…` or ``…`` on one line. Both lists are in
  // text order, so one pointer walks the fences.
  const fences = regions.slice()
  let f = 0
  for (const m of text.matchAll(/(`+)(?!`)([^\n]*?[^`\n])\1(?!`)/g)) {
    while (f < fences.length && fences[f].end <= m.index) f++
    if (f < fences.length && m.index >= fences[f].start) continue
    regions.push({ start: m.index, end: m.index + m[0].length })
  }
  // HTML that shows code or hides it: comments, <pre>, <code>, <kbd>, <samp> (outside the fences).
  for (const m of text.matchAll(/<!--[\s\S]*?(?:-->|$)|<(pre|code|kbd|samp)\b[^>]*>[\s\S]*?(?:<\/\1>|$)/gi)) {
    if (!fences.some((r) => r.start <= m.index && m.index < r.end))
      regions.push({ start: m.index, end: m.index + m[0].length })
  }
  return regions.sort((a, b) => a.start - b.start)
}

/** The region that strictly holds `span` (the span is not the region itself), if any. */
export function enclosingRegion(regions: readonly Region[], span: Region): Region | undefined {
  return regions.find(
    (r) => r.start <= span.start && span.end <= r.end && (r.start < span.start || span.end < r.end),
  )
}

/** End-of-turn tokens servers leave in the text (and HyperCLOVAX's role header before its calls); neither prose nor a call. */
export const LEFTOVER_TOKENS =
  /<\|(?:eot_id|eom_id|im_end|end|return|call|endoftext|end_of_text|role_end)\|>|<\/s>|<eos>|<end_of_turn>|^ ?-> tool\/function_call\n/g

/** A short lead-in before a call ("I'll read the config first:"), at most two sentences. */
export const MAX_LEAD_IN_CHARS = 200

/**
 * The "act, not example" rule: the answer IS these calls when, outside the regions
 * they take, there is at most a short lead-in before them and nothing but whitespace
 * (and leftover tokens) between and after them.
 */
export function isWholeAnswer(text: string, taken: readonly Region[]): boolean {
  const sorted = [...taken].sort((a, b) => a.start - b.start)
  if (sorted.length === 0) return false
  const lead = prose(text.slice(0, sorted[0].start))
  // A lead-in is prose: JSON or code before the call means the answer is about JSON.
  if (lead.length > MAX_LEAD_IN_CHARS || sentences(lead) > 2 || /[{}`]/.test(lead)) return false
  for (let i = 1; i < sorted.length; i++) {
    if (prose(text.slice(sorted[i - 1].end, sorted[i].start)) !== '') return false
  }
  // A stray closing bracket after a list (`[{…}]]`) is a slip, not prose.
  return /^[\]}]*$/.test(prose(text.slice(sorted[sorted.length - 1].end)))
}

function prose(s: string): string {
  return s.replace(LEFTOVER_TOKENS, '').trim()
}

function sentences(s: string): number {
  if (s === '') return 0
  return s.split(/[.!?:](?:\s+|$)/).filter((part) => part.trim() !== '').length
}

/**
 * Words that introduce an example of the format rather than the model's own act: "for
 * example", "e.g.", "you could call", "the syntax is", "writes calls like". Markup right
 * after them (on the same line or after a colon and a line break) is shown, not made.
 */
const EXAMPLE_CUE = new RegExp(
  [
    String.raw`\bfor (?:example|instance)`,
    String.raw`\be\.g\.`,
    String.raw`\bsuch as`,
    String.raw`\b(?:an|one|another) example(?: (?:call|output|usage|of (?:a |the )?(?:call|format|syntax)))?`,
    String.raw`(?:^|\n)\s*example(?: call| output| usage)?`,
    String.raw`\byou(?:'d| (?:could|can|would|might|may|should)) (?:call|use|write|send|invoke|run|emit)(?: (?:it|a call|the tool|them))?(?: (?:like|as) (?:this|so))?`,
    String.raw`\byou (?:call|invoke|use|write|send|run) (?:it |them |a tool |the tool |a call )?(?:like|as) (?:this|so|follows)`,
    String.raw`\blooks? like(?: this)?`,
    String.raw`\b(?:format|syntax|shape) (?:is|looks like|would be)`,
    String.raw`\bwritten (?:as|like)`,
    String.raw`\b(?:is|are|gets?) (?:written|formatted|encoded|seriali[sz]ed)(?: (?:as|like)(?: this| so)?)?`,
    String.raw`\b(?:model|assistant|llm|you) (?:should|must|would|will|can|could|might) (?:output|write|emit|return|send|produce|generate)(?: (?:this|something like(?: this)?))?`,
    String.raw`\bsample (?:output|call|response|answer)`,
    String.raw`(?:^|\n)\s*sample`,
    String.raw`\b(?:writes|emits|outputs|produces|formats|marks|wraps|shows) (?:\S+ ){0,3}(?:like|as|in)(?: this| so| follows)?`,
  ].join('|'),
)
const EXAMPLE_CUE_AT_END = new RegExp(`(?:${EXAMPLE_CUE.source})\\s*[:,]?$`, 'i')

/** Prose names the tag as a word of a sentence: "uses <tool_call> syntax", not markup next to markup. */
function mentions(prose: string, tag: string): boolean {
  for (let i = prose.indexOf(tag); i >= 0; i = prose.indexOf(tag, i + 1)) {
    if (
      /[\w,] $/.test(prose.slice(Math.max(0, i - 2), i)) &&
      /^ [a-z]/.test(prose.slice(i + tag.length, i + tag.length + 2))
    )
      return true
  }
  return false
}

const QUOTES: Record<string, string> = {
  '"': '"',
  "'": "'",
  '“': '”',
  '‘': '’',
  '«': '»',
  '「': '」',
  '„': '“',
}

/**
 * Is the markup in `span` shown rather than made? Introduced as an example ("for example,
 * you could call <tool_call>…"), quoted (`"<tool_call>…</tool_call>"`), or in a
 * Markdown blockquote (`> <tool_call>…`). `floor`: where the previous call ended; the
 * lead-in is read after it. `text` has reasoning blanked; `raw` is the answer as written.
 */
export function shownAsExample(text: string, span: Region, floor = 0, raw = text): boolean {
  const before = text
    .slice(Math.max(floor, span.start - 160), span.start)
    .replace(LEFTOVER_TOKENS, '')
    // A wrapper token the call sits in (`<tool_calls>`, `<|tool_calls_section_begin|>`) is not prose.
    .replace(/(?:\s*<[^<>\s]{1,40}>)+\s*$/, '')
    .trimEnd()
  // The lead-in names the markup itself ("The test uses <tool_call> syntax:"): an example of it.
  const opener = /^(?:<[^<>\s]{1,40}>|\[[A-Z_]{3,30}\])/.exec(text.slice(span.start, span.start + 42))?.[0]
  if (opener && mentions(before, opener)) return true
  if (EXAMPLE_CUE_AT_END.test(before)) return true
  const close = QUOTES[text[span.start - 1]]
  if (close !== undefined && text.slice(span.end).trimStart().startsWith(close)) return true
  const lineStart = text.lastIndexOf('\n', span.start - 1) + 1
  const lead = text.slice(lineStart, span.start)
  // A blockquote, one item of a list of options, or a cell of a table (read in the raw text:
  // quoted reasoning is blanked in `text`, its `>` with it).
  if (/^ {0,3}>/.test(raw.slice(lineStart, span.start))) return true
  if (/^\s*(?:[-*+]|\d+[.)])\s+$/.test(lead) || /^\s*\|/.test(lead)) return true
  // An indented code block: four spaces in, after a blank line that follows prose (not a fence's
  // opening line: indentation inside a fence is the fence's, as in llama.cpp's Hermes-2-Pro test
  // "```json\n\n                    <function_call> {…}").
  if (/^(?: {4,}|\t+)$/.test(lead)) {
    const above = /(?:^|\n)([^\n]*\S)[^\S\n]*\n[^\S\n]*\n$/.exec(
      text.slice(Math.max(0, lineStart - 4096), lineStart),
    )
    if (above && !/^ {0,3}(?:`{3,}|~{3,})/.test(above[1])) return true
  }
  return narratedInSentence(text, span, lead)
}

/** Words that, right before markup in a sentence, talk about a call: "I would normally run …". */
const NARRATION_CUE =
  /\b(?:run|runs|ran|call|calls|called|calling|use|uses|used|using|try|tried|invoke|invoked|send|sent|emit|emitted|wrote|like|as|of|than|via|with|or)\s*$/i

/**
 * Markup inside a sentence that goes on after it ("I would normally run <tool_call>…</tool_call>
 * but the user said not to", "Instead of <…>, I answered"): the model talks about a call.
 * A call after a lead-in ("Let me check.<tool_call>…") ends its line, so it is not this.
 */
function narratedInSentence(text: string, span: Region, lead: string): boolean {
  const lineEnd = text.indexOf('\n', span.end)
  const tail = text.slice(span.end, lineEnd < 0 ? text.length : lineEnd).replace(LEFTOVER_TOKENS, '')
  return /^\s*(?:[,;]|[a-z])/.test(tail) && NARRATION_CUE.test(lead)
}
