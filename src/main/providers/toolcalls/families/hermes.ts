import {
  balancedEnd,
  budgetedBalance,
  callsFromValue,
  forwardFinder,
  isObject,
  matchAt,
  parseJsonLoose,
  type Balance,
} from '../json-scan'
import { parsePyCalls } from '../python-literal'
import type { BrokenSpan, FamilyResult, RawCall, Span, ToolCallFamily } from '../types'
import { pushAll } from '../../../../shared/arrays'

/*
 * Hermes 2 Pro / Qwen 2.5 / Qwen3: `<tool_call>{"name":…, "arguments":…}</tool_call>`,
 * one block per call (some models put several objects or a list in one block). Real
 * quirks: the last block unterminated (the stop token ate it, as vLLM accepts), the
 * opening tag missing (`{…}</tool_call>`, Qwen templates that put it in the prompt),
 * a ```json fence inside the block, and `<|im_start|>`/`<|im_end|>` left in the text.
 * A block whose body is `<function=…>` is Qwen3-Coder's (see qwen3-coder.ts).
 */

/** A block's tags, and what may sit between its JSON and the closing tag. */
interface Tags {
  open: string
  close: string
  tail: RegExp
}

/**
 * What may sit between the JSON and the closing tag (a stray `}` too: Ollama's
 * TestFindArguments "extra closing").
 */
const tailBefore = (close: string) => new RegExp(`(?:\\s|\`\`\`|<\\|im_end\\|>|[}\\]])*${close}`)

const TOOL_CALL: Tags = { open: '<tool_call>', close: '</tool_call>', tail: tailBefore('</tool_call>') }
/**
 * The same block under Hermes 2 Pro's older tag, as llama.cpp's Hermes-2-Pro parser reads it
 * (tests/test-chat.cpp, COMMON_CHAT_FORMAT_HERMES_2_PRO: "```json\n<function_call> {…} </function_call>\n```").
 */
const FUNCTION_CALL: Tags = {
  open: '<function_call>',
  close: '</function_call>',
  tail: tailBefore('</function_call>'),
}
/** What may sit between the tag and the JSON: whitespace, ChatML leftovers, a fence. */
const LEAD = /(?:\s|<\|im_start\|>(?:assistant)?|```[\w-]*)*/
/** How many `{` an unopened `</tool_call>` is read back from: the JSON starts near the boundary. */
const MAX_UNOPENED_TRIES = 64

function parse(text: string): { spans: Span[]; broken: BrokenSpan[] } {
  const spans: Span[] = []
  const broken: BrokenSpan[] = []
  for (const tags of [TOOL_CALL, FUNCTION_CALL]) {
    if (!text.includes(tags.open) && !text.includes(tags.close)) continue
    const found = parseTags(text, tags)
    pushAll(spans, found.spans)
    pushAll(broken, found.broken)
  }
  return { spans, broken }
}

function parseTags(text: string, tags: Tags): { spans: Span[]; broken: BrokenSpan[] } {
  const spans: Span[] = []
  const broken: BrokenSpan[] = []
  const balance = budgetedBalance()
  const find = { open: forwardFinder(text, tags.open), close: forwardFinder(text, tags.close) }
  /** Where the last block ended: a closing tag with no opener is read back to here. */
  let boundary = 0
  let i = 0
  while (i < text.length) {
    const open = find.open(i)
    const close = find.close(i)
    if (open < 0 && close < 0) break
    if (close >= 0 && (open < 0 || close < open)) {
      // `{…}</tool_call>` with no opening tag.
      const end = close + tags.close.length
      const start = unopenedStart(text, boundary, close)
      if (start >= 0) read(text.slice(start, close), { start, end }, { spans, broken }, tags)
      boundary = i = end
      continue
    }
    boundary = i = block(text, open, { spans, broken, balance, find, tags })
  }
  return { spans, broken }
}

/**
 * One `<tool_call>` block from `open`; returns where it ends. The JSON is read as
 * JSON (a `</tool_call>` inside a string, as in `echo '</tool_call>'`, is text), then
 * the closing tag is expected; without it the block ends with its JSON (the stop
 * token ate the tag, as vLLM accepts).
 */
interface BlockState {
  spans: Span[]
  broken: BrokenSpan[]
  balance: Balance
  find: { open: (from: number) => number; close: (from: number) => number }
  tags: Tags
}

function block(text: string, open: number, state: BlockState): number {
  const { spans, broken, balance, find, tags } = state
  const bodyStart = open + tags.open.length
  const lead = matchAt(LEAD, text, bodyStart)![0]
  const jsonStart = bodyStart + lead.length
  const nextTag = (from: number) => {
    const c = find.close(from)
    const o = find.open(from)
    return c >= 0 && (o < 0 || c < o)
      ? { at: c, end: c + tags.close.length }
      : { at: o < 0 ? text.length : o, end: o < 0 ? text.length : o }
  }
  if (text[jsonStart] !== '{' && text[jsonStart] !== '[') {
    // Not JSON: another family's body (`<function=…>`, GLM's `name<arg_key>`), or an empty block.
    const next = nextTag(bodyStart)
    if (text.slice(bodyStart, next.at).trim() === '' && next.end > next.at)
      broken.push({ start: open, end: next.end, problem: `an empty ${tags.open} block` })
    return next.end
  }
  let pos = jsonStart
  let lastEnd = -1
  for (;;) {
    const end = balance(text, pos)
    if (end < 0) break
    lastEnd = end
    const more = matchAt(/[\s,]*(?=[[{])/, text, end)
    if (!more) break
    pos = end + more[0].length
  }
  if (lastEnd < 0) {
    const next = nextTag(jsonStart)
    broken.push({
      start: open,
      end: next.end,
      problem: `the JSON inside ${tags.open} does not parse (a closing brace or bracket is missing, or the answer was cut off)`,
    })
    return next.end
  }
  const tail = matchAt(tags.tail, text, lastEnd)
  const end = tail ? lastEnd + tail[0].length : lastEnd
  read(text.slice(jsonStart, lastEnd), { start: open, end }, { spans, broken }, tags)
  return end
}

/** One block's JSON `body`, lying at `start`…`end` in the answer, as calls or as a broken span. */
function read(
  body: string,
  { start, end }: { start: number; end: number },
  { spans, broken }: FamilyResult,
  tags: Tags,
): void {
  const json = unwrap(body)
  const parsed = parseJsonLoose(json)
  if (!parsed.ok) {
    const many = sequence(json) ?? pythonDict(json)
    if (many) spans.push({ start, end, calls: many, kind: 'markup' })
    else broken.push({ start, end, problem: `the JSON inside ${tags.open} does not parse (${parsed.error})` })
    return
  }
  const calls = callsFromValue(parsed.value)
  if (calls) spans.push({ start, end, calls, kind: 'markup' })
  else broken.push({ start, end, problem: `the JSON inside ${tags.open} has no "name" and "arguments"` })
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
    pushAll(calls, found)
    i = end
  }
  return calls.length > 1 ? calls : undefined
}

/** A Python dict instead of JSON (`{'name': 'read_file', 'arguments': {…}}`, RWKV's legacy form). */
function pythonDict(body: string): RawCall[] | undefined {
  if (!/^\{\s*'/.test(body)) return undefined
  // The literal reader reads calls: read the dict as the one argument of a call.
  const r = parsePyCalls(`_(v=${body})`, 0)
  const args = r.ok && r.calls.length === 1 ? r.calls[0].arguments : undefined
  return isObject(args) ? callsFromValue(args.v) : undefined
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

/** Start of the JSON that ends right before an unopened `</tool_call>`, or -1. */
function unopenedStart(text: string, from: number, close: number): number {
  let end = close
  while (end > from && /\s/.test(text[end - 1])) end--
  if (text[end - 1] !== '}' && text[end - 1] !== ']') return -1
  let tries = 0
  for (let i = from; i < end && tries < MAX_UNOPENED_TRIES; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue
    tries++
    if (balancedEnd(text, i, end) === end) return i
  }
  return -1
}

export const hermes: ToolCallFamily = {
  id: 'hermes',
  models: 'Hermes 2 Pro, Qwen 2.5, Qwen3, QwQ and most models whose template teaches <tool_call>',
  detect: (text) => [TOOL_CALL, FUNCTION_CALL].some((t) => text.includes(t.open) || text.includes(t.close)),
  parse,
  example: '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/index.ts"}}\n</tool_call>',
}
