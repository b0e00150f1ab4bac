import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { addCalls, invokeReader, quote } from './markup-util'

/*
 * Glimmer (Ollama's model/parsers/glimmer.go): messages `[<|start|>assistant] to=RECIPIENT<|message|>BODY`
 * ended by `<|eom|>` or `<|eot|>`. `to=self` is reasoning (blanked by ../reasoning.ts),
 * `to=user` is the answer, and a message to a tool holds one ATEM block:
 *   <atem:function_calls><atem:invoke name="read_file"><atem:parameter name="path">a.ts</atem:parameter></atem:invoke></atem:function_calls>
 * Parameter values are text kept exactly (spaces, even `<|eot|>` inside them); the
 * schema check converts numbers and booleans.
 */

const BLOCK = /<atem:function_calls>([\s\S]*?)(<\/atem:function_calls>|$)/g
// The recipient may be missing (`<|message|>` alone): Ollama reads the block as a call anyway.
const HEADER = /(?:<\|start\|>assistant)?(?:[ \t]*\bto=([^\s<]+))?<\|message\|>/g
const END = /<\|eo[mt]\|>/y
const readInvokes = invokeReader('atem')

function readBlock(body: string): RawCall[] | string {
  const read = readInvokes(body)
  if (typeof read === 'string') return read
  if (read.rest.trim() !== '')
    return `unexpected text ${JSON.stringify(quote(read.rest))} in <atem:function_calls>`
  return read.calls.length > 0 ? read.calls : 'the <atem:function_calls> block holds no <atem:invoke>'
}

/** The terminator right after `at` (spaces aside), if any: its end. */
function terminatorEnd(text: string, at: number): number {
  let i = at
  while (i < text.length && /\s/.test(text[i])) i++
  END.lastIndex = i
  const m = END.exec(text)
  return m ? i + m[0].length : at
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  // Headers by where their body starts, so a block can take its header with it.
  const headers = new Map<number, { start: number; recipient: string }>()
  const answers: Array<{ start: number; end: number }> = []
  for (const h of text.matchAll(HEADER)) {
    const bodyAt = h.index + h[0].length
    if (h[1] === 'user') {
      // The answer: its header and terminator are protocol, the body is the text.
      out.spans.push({ start: h.index, end: bodyAt, calls: [], kind: 'markup' })
      const term = text.slice(bodyAt).search(/<\|eo[mt]\|>|<\|start\|>/)
      const termAt = term < 0 ? text.length : bodyAt + term
      answers.push({ start: bodyAt, end: termAt })
      if (text.startsWith('<|eo', termAt))
        out.spans.push({ start: termAt, end: termAt + 7, calls: [], kind: 'markup' })
    } else headers.set(bodyAt, { start: h.index, recipient: h[1] ?? '' })
  }
  for (const m of text.matchAll(BLOCK)) {
    // In the answer, a block is a call only when it is the whole message (a fumbled
    // recipient, as Ollama reads it); with prose around it, it is shown, not made.
    const answer = answers.find((a) => a.start <= m.index && m.index < a.end)
    if (answer && text.slice(answer.start, answer.end).trim() !== m[0].trim()) continue
    const header = headers.get(m.index)
    const start = header ? header.start : m.index
    const closed = m[2] !== ''
    const end = closed ? terminatorEnd(text, m.index + m[0].length) : text.length
    const read = closed ? readBlock(m[1]) : 'the <atem:function_calls> block is not closed'
    addCalls(out, start, end, read)
  }
  return out
}

export const glimmer: ToolCallFamily = {
  id: 'glimmer',
  models: 'Glimmer (ATEM calls, as Ollama reads them)',
  detect: (text) => text.includes('<atem:function_calls>') || text.includes('to=user<|message|>'),
  parse,
  example:
    '<atem:function_calls>\n<atem:invoke name="read_file">\n<atem:parameter name="path">src/main.ts</atem:parameter>\n</atem:invoke>\n</atem:function_calls>',
}
