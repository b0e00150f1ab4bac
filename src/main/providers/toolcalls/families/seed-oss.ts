import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { forwardFinder } from '../json-scan'
import { callsAt } from './json-at'

/*
 * ByteDance Seed-OSS: `<seed:tool_call>\n<function=NAME>\n<parameter=p>value</parameter>\n</function>\n</seed:tool_call>`,
 * one or more functions per block, after a `<seed:think>…</seed:think>` that often
 * spells out the same markup while planning. `index.ts` removes the reasoning first;
 * this family also skips any `<seed:think>` block it is handed, so no span ever
 * reaches into it. Values are raw text (one newline trimmed each side); a value that
 * is JSON (a number, a list) is left as text for the schema check to coerce.
 */

const OPEN = '<seed:tool_call>'
const CLOSE = '</seed:tool_call>'
const THINK = /<seed:think>[\s\S]*?(<\/seed:think>|$)/g
const FUNCTION = /<function=([^>\s]+)>([\s\S]*?)(<\/function>|(?=<function=)|$)/g
const PARAMETER = /<parameter=([^>\s]+)>([\s\S]*?)(<\/parameter>|(?=<parameter=)|(?=<\/function>)|$)/g

export const seedOss: ToolCallFamily = {
  id: 'seed-oss',
  models: 'Seed-OSS (ByteDance)',
  detect: (text) => text.includes(OPEN),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    const thinking = [...text.matchAll(THINK)].map((m) => [m.index, m.index + m[0].length] as const)
    let t = 0 // blocks are visited in order, so one pointer walks the thinking stretches
    const inThinking = (i: number): boolean => {
      while (t < thinking.length && thinking[t][1] <= i) t++
      return t < thinking.length && thinking[t][0] <= i
    }
    const closeAfter = forwardFinder(text, CLOSE)
    for (let start = text.indexOf(OPEN); start >= 0; start = text.indexOf(OPEN, start + OPEN.length)) {
      if (inThinking(start)) continue
      // A block never closed stops at the next block's opener, so unclosed blocks are read once.
      const nextOpen = text.indexOf(OPEN, start + OPEN.length)
      const stop = nextOpen < 0 ? text.length : nextOpen
      const closeAt = closeAfter(start)
      const close = closeAt >= 0 && closeAt < stop ? closeAt : -1
      const bodyEnd = close < 0 ? stop : close
      // Without the closing tag the block ends with its last </function>; prose may follow.
      const lastFn = text.slice(start, bodyEnd).lastIndexOf('</function>')
      const end =
        close >= 0 ? close + CLOSE.length : lastFn > 0 ? start + lastFn + '</function>'.length : bodyEnd
      const calls = readFunctions(text.slice(start + OPEN.length, bodyEnd))
      if (typeof calls === 'string') result.broken.push({ start, end, problem: calls })
      else result.spans.push({ start, end, calls, kind: 'markup' })
    }
    return result
  },
  example:
    '<seed:tool_call>\n<function=read_file>\n<parameter=path>src/main.ts</parameter>\n</function>\n</seed:tool_call>',
}

/** The calls in one block, or what is wrong with it. */
function readFunctions(body: string): RawCall[] | string {
  // Some answers put Hermes-style JSON inside Seed's tags; the intent is as plain.
  if (/^\s*[[{]/.test(body)) {
    const json = callsAt(body, 0)
    if (json.ok && json.calls.length > 0 && body.slice(json.end).trim() === '') return json.calls
  }
  const calls: RawCall[] = []
  for (const f of body.matchAll(FUNCTION)) {
    if (f[3] === '') return `<function=${f[1]}> is never closed with </function>`
    const args: Record<string, string> = {}
    for (const p of f[2].matchAll(PARAMETER)) {
      if (p[3] !== '</parameter>') return `<parameter=${p[1]}> in ${f[1]} is never closed with </parameter>`
      args[p[1]] = p[2].replace(/^\n/, '').replace(/\n$/, '')
    }
    calls.push({ name: f[1], arguments: args })
  }
  return calls.length > 0 ? calls : `the ${OPEN} block holds no <function=NAME>`
}
