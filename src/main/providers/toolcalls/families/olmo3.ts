import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { skipSpace } from '../json-scan'
import { parsePyCalls } from '../python-literal'
import { addCalls, quote, tagBlocks } from './markup-util'
import { pushAll } from '../../../../shared/arrays'

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
  // A block never closed runs to the next block (or the end): the model was cut off.
  for (const { start, bodyStart, bodyEnd, end, closed } of tagBlocks(text, OPEN, CLOSE)) {
    const read = readBody(text, bodyStart, bodyEnd)
    if (typeof read === 'string') {
      // Prose that names the tag (no call after it, never closed) is not an attempt.
      if (!closed && !/^\s*\[?\s*[A-Za-z_][\w.-]*\s*\(/.test(text.slice(bodyStart, bodyEnd))) continue
      addCalls(out, start, end, `the calls in <function_calls> do not parse (${read})`)
    } else if (read.length > 0) addCalls(out, start, end, read)
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
    pushAll(calls, r.calls)
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
