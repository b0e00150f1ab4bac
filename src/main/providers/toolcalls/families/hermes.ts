import { balancedEnd, callsFromValue, parseJsonLoose } from '../json-scan'
import type { BrokenSpan, RawCall, Span, ToolCallFamily } from '../types'

/*
 * Hermes 2 Pro / Qwen 2.5 / Qwen3: `<tool_call>{"name":…, "arguments":…}</tool_call>`,
 * one block per call (some models put several objects or a list in one block). Real
 * quirks: the last block unterminated (the stop token ate it, as vLLM accepts), the
 * opening tag missing (`{…}</tool_call>`, Qwen templates that put it in the prompt),
 * a ```json fence inside the block, and `<|im_start|>`/`<|im_end|>` left in the text.
 * A block whose body is `<function=…>` is Qwen3-Coder's (see qwen3-coder.ts).
 */

const OPEN = '<tool_call>'
const CLOSE = '</tool_call>'

function parse(text: string): { spans: Span[]; broken: BrokenSpan[] } {
  const spans: Span[] = []
  const broken: BrokenSpan[] = []
  /** Where the last block ended: a closing tag with no opener is read back to here. */
  let boundary = 0
  let i = 0
  while (i < text.length) {
    const open = text.indexOf(OPEN, i)
    const close = text.indexOf(CLOSE, i)
    if (open < 0 && close < 0) break
    if (close >= 0 && (open < 0 || close < open)) {
      // `{…}</tool_call>` with no opening tag.
      const end = close + CLOSE.length
      const start = unopenedStart(text, boundary, close)
      if (start >= 0) read(text.slice(start, close), start, end, spans, broken)
      boundary = i = end
      continue
    }
    const bodyStart = open + OPEN.length
    const nextOpen = text.indexOf(OPEN, bodyStart)
    const nextClose = text.indexOf(CLOSE, bodyStart)
    const terminated = nextClose >= 0 && (nextOpen < 0 || nextClose < nextOpen)
    const bodyEnd = terminated ? nextClose : nextOpen >= 0 ? nextOpen : text.length
    const end = terminated ? nextClose + CLOSE.length : bodyEnd
    const body = text.slice(bodyStart, bodyEnd)
    if (!terminated && looksLikeJson(body)) {
      // The stop token ate the closing tag: the block is its first JSON value, if that is whole.
      const jsonStart = text.slice(bodyStart).search(/[[{]/) + bodyStart
      const jsonEnd = balancedEnd(text, jsonStart)
      if (jsonEnd < 0) broken.push({ start: open, end, problem: 'the JSON inside <tool_call> is cut off' })
      else read(text.slice(jsonStart, jsonEnd), open, jsonEnd, spans, broken)
      boundary = i = jsonEnd < 0 ? end : jsonEnd
      continue
    }
    if (looksLikeJson(body)) read(body, open, end, spans, broken)
    else if (terminated && body.trim() === '')
      broken.push({ start: open, end, problem: 'an empty <tool_call> block' })
    boundary = i = end
  }
  return { spans, broken }
}

function read(body: string, start: number, end: number, spans: Span[], broken: BrokenSpan[]): void {
  const json = unwrap(body)
  const parsed = parseJsonLoose(json)
  if (!parsed.ok) {
    const many = sequence(json)
    if (many) spans.push({ start, end, calls: many, kind: 'markup' })
    else broken.push({ start, end, problem: `the JSON inside <tool_call> does not parse (${parsed.error})` })
    return
  }
  const calls = callsFromValue(parsed.value)
  if (calls) spans.push({ start, end, calls, kind: 'markup' })
  else broken.push({ start, end, problem: 'the JSON inside <tool_call> has no "name" and "arguments"' })
}

/** Several objects back to back in one block. */
function sequence(json: string): RawCall[] | undefined {
  const calls: RawCall[] = []
  let i = 0
  while (i < json.length) {
    if (/[\s,]/.test(json[i])) {
      i++
      continue
    }
    const end = balancedEnd(json, i)
    if (end < 0) return undefined
    const parsed = parseJsonLoose(json.slice(i, end))
    const found = parsed.ok ? callsFromValue(parsed.value) : undefined
    if (!found) return undefined
    calls.push(...found)
    i = end
  }
  return calls.length > 1 ? calls : undefined
}

/** The block's body without a fence around it and without chat-template leftovers. */
function unwrap(body: string): string {
  return body
    .replace(/<\|im_(?:start|end)\|>(?:assistant)?/g, '')
    .trim()
    .replace(/^```[\w-]*[ \t]*\n?/, '')
    .replace(/\n?```$/, '')
    .trim()
}

function looksLikeJson(body: string): boolean {
  return /^[[{]/.test(unwrap(body))
}

/** Start of the JSON that ends right before an unopened `</tool_call>`, or -1. */
function unopenedStart(text: string, from: number, close: number): number {
  let end = close
  while (end > from && /\s/.test(text[end - 1])) end--
  if (text[end - 1] !== '}' && text[end - 1] !== ']') return -1
  for (let i = from; i < end; i++) {
    if ((text[i] === '{' || text[i] === '[') && balancedEnd(text, i) === end) return i
  }
  return -1
}

export const hermes: ToolCallFamily = {
  id: 'hermes',
  models: 'Hermes 2 Pro, Qwen 2.5, Qwen3, QwQ and most models whose template teaches <tool_call>',
  detect: (text) => text.includes(OPEN) || text.includes(CLOSE),
  parse,
  example: '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/index.ts"}}\n</tool_call>',
}
