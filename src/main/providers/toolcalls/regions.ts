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
  return regions.sort((a, b) => a.start - b.start)
}

/** The region that strictly holds `span` (the span is not the region itself), if any. */
export function enclosingRegion(regions: readonly Region[], span: Region): Region | undefined {
  return regions.find(
    (r) => r.start <= span.start && span.end <= r.end && (r.start < span.start || span.end < r.end),
  )
}

/** End-of-turn tokens servers leave in the text; they are neither prose nor a call. */
export const LEFTOVER_TOKENS =
  /<\|(?:eot_id|eom_id|im_end|end|return|call|endoftext|end_of_text|role_end)\|>|<\/s>|<eos>|<end_of_turn>/g

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
