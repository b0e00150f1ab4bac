import { forwardFinder, skipSpace } from '../json-scan'
import { readPythonCalls } from '../python-literal'
import type { BrokenSpan, Span, ToolCallFamily } from '../types'

/*
 * Calls written as Python: Llama 3.2 and Llama 4 (`[read_file(path='a'), git_status()]`,
 * Llama 4 inside `<|python_start|>…<|python_end|>`), ToolACE, Granite's pythonic mode
 * and others. Inside the python markers it is markup (kind `markup`); an unmarked
 * list is also how code is shown, so it is kind `json` and counts only as the whole
 * answer. A single unbracketed call counts only when it is the whole answer too.
 */

const START = '<|python_start|>'
const END = '<|python_end|>'
/** A list that opens with `name(`: the only unmarked shape read. */
const LIST = /\[\s*[A-Za-z_][\w.]*\s*\(/g

function parse(text: string): { spans: Span[]; broken: BrokenSpan[] } {
  const spans: Span[] = []
  const broken: BrokenSpan[] = []
  const marked: Array<[number, number]> = []
  const closeAfter = forwardFinder(text, END)
  for (let at = text.indexOf(START); at >= 0; at = text.indexOf(START, at + 1)) {
    const close = closeAfter(at)
    const end = close < 0 ? text.length : close + END.length
    marked.push([at, end])
    const bodyStart = skipSpace(text, at + START.length)
    const bracketed = text[bodyStart] === '['
    // Read within the block: to its closing token, or to the next block's opener.
    const next = text.indexOf(START, at + 1)
    const limit = Math.min(close < 0 ? text.length : close, next < 0 ? text.length : next)
    const read = readPythonCalls(
      text,
      bracketed ? bodyStart + 1 : bodyStart,
      bracketed ? ']' : undefined,
      limit,
    )
    let readEnd = read.ok ? read.end : -1
    if (read.ok && bracketed) readEnd = text[read.end] === ']' ? read.end + 1 : -1
    const innerEnd = close < 0 ? text.length : close
    if (!read.ok)
      broken.push({
        start: at,
        end,
        problem: `the call after <|python_start|> does not parse (${read.error})`,
      })
    else if (readEnd < 0 || !/^\s*$/.test(text.slice(readEnd, Math.max(readEnd, innerEnd))))
      broken.push({ start: at, end, problem: 'text after the calls inside <|python_start|>…<|python_end|>' })
    else spans.push({ start: at, end, calls: read.value, kind: 'markup' })
  }
  // Lists are met in text order: one pointer walks the marked blocks (whose spans they are).
  let k = 0
  let lastEnd = 0
  for (const m of text.matchAll(LIST)) {
    while (k < marked.length && marked[k][1] <= m.index) k++
    if (k < marked.length && marked[k][0] <= m.index) continue
    if (m.index < lastEnd) continue
    const read = readPythonCalls(text, m.index + 1, ']')
    if (read.ok && text[read.end] === ']') {
      spans.push({ start: m.index, end: read.end + 1, calls: read.value, kind: 'json' })
      lastEnd = read.end + 1
    } else if (!read.ok) {
      // Lists opening inside what a failed read looked through are not read again: an
      // unmarked list counts only as the whole answer, which this answer is not.
      lastEnd = Math.max(lastEnd, read.reached)
    }
  }
  if (spans.length === 0 && broken.length === 0) {
    // `read_file(path='a')` as the whole answer, as small Llama 3.2 models write it.
    const first = text.search(/\S/)
    const read =
      first >= 0 && /^[A-Za-z_][\w.]*\s*\(/.test(text.slice(first))
        ? readPythonCalls(text, first, undefined)
        : undefined
    if (
      read?.ok &&
      text
        .slice(read.end)
        .replace(/<\|eot_id\|>|<\|eom_id\|>/g, '')
        .trim() === ''
    )
      spans.push({ start: first, end: read.end, calls: read.value, kind: 'json' })
  }
  return { spans, broken }
}

export const pythonic: ToolCallFamily = {
  id: 'pythonic',
  models: 'Llama 3.2 and Llama 4 (pythonic), ToolACE, Granite (pythonic mode)',
  detect: (text) => text.includes(START) || /[A-Za-z_][\w.]*\s*\(/.test(text),
  parse,
  example: "[read_file(path='src/index.ts')]",
}
