import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { forwardFinder, skipSpace } from '../json-scan'
import { parsePyCalls } from '../python-literal'
import { quote } from './markup-util'

/*
 * Olmo 3 (AllenAI): `<function_calls>read_file(path="a.ts")\ngit_status()</function_calls>`,
 * Python calls one per line (commas between them and a `[…]` list are read too) between
 * two plain tags. The tags are markup; a block with one unreadable call is broken whole,
 * as everywhere else: never run half a batch.
 */

const OPEN = '<function_calls>'
const CLOSE = '</function_calls>'

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  const closeAfter = forwardFinder(text, CLOSE)
  const openAfter = forwardFinder(text, OPEN)
  for (let at = openAfter(0); at >= 0; at = openAfter(at + 1)) {
    const bodyStart = at + OPEN.length
    const close = closeAfter(bodyStart)
    const next = openAfter(bodyStart)
    // A block never closed runs to the next block (or the end): the model was cut off.
    const closed = close >= 0 && (next < 0 || close < next)
    const limit = closed ? close : next < 0 ? text.length : next
    const end = closed ? close + CLOSE.length : limit
    const read = readBody(text, bodyStart, limit)
    if (typeof read === 'string') {
      // Prose that names the tag (no call after it, never closed) is not an attempt.
      if (!closed && !/^\s*\[?\s*[A-Za-z_][\w.-]*\s*\(/.test(text.slice(bodyStart, limit))) continue
      out.broken.push({ start: at, end, problem: `the calls in <function_calls> do not parse (${read})` })
    } else if (read.length > 0) out.spans.push({ start: at, end, calls: read, kind: 'markup' })
  }
  return out
}

/** Every call between `from` and `limit`, or why they cannot be read. */
function readBody(text: string, from: number, limit: number): RawCall[] | string {
  const calls: RawCall[] = []
  let i = skipSpace(text, from)
  while (i < limit) {
    const r = parsePyCalls(text, i, limit)
    if (!r.ok) return r.error
    calls.push(...r.calls)
    i = skipSpace(text, r.end)
    if (text[i] === ',') i = skipSpace(text, i + 1)
    else if (i < limit && !text.slice(r.end, i).includes('\n')) {
      // Calls are one per line: anything else after a call on its line is not this format.
      return `unexpected text ${JSON.stringify(quote(text.slice(i, limit)))} after a call`
    }
  }
  return calls
}

export const olmo3: ToolCallFamily = {
  id: 'olmo3',
  models: 'Olmo 3 (AllenAI)',
  detect: (text) => text.includes(OPEN),
  parse,
  example: '<function_calls>read_file(path="src/main.ts")</function_calls>',
}
