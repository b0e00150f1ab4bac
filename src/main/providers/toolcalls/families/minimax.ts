import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { balancedEnd, forwardFinder, parseJsonLoose, skipSpace } from '../json-scan'
import { attribute, namedCall, quote } from './markup-util'

/*
 * MiniMax-M2: `<minimax:tool_call><invoke name="NAME"><parameter name="p">v</parameter></invoke></minimax:tool_call>`.
 * MiniMax-M1: `<tool_calls>` then one `{"name": …, "arguments": …}` per line, then `</tool_calls>`
 * (vLLM also accepts the closing tag missing at the end of the message). Hunyuan-A13B and
 * Jamba use the same tags around a JSON list: `<tool_calls>[{…}, {…}]</tool_calls>`.
 *
 * M2 parameter values stay text, as with GLM: only the schema says which are numbers.
 */
const M2_OPEN = /<minimax:tool_call>/g
const M2_CLOSE = '</minimax:tool_call>'
const INVOKE = /<invoke\b([^>]*)>([\s\S]*?)(<\/invoke>|(?=<invoke\b)|$)/g
const PARAM = /<parameter\b([^>]*)>([\s\S]*?)<\/parameter>/g
const M1_OPEN = /<tool_calls>/g
const M1_CLOSE = '</tool_calls>'

function parseM2(text: string, out: FamilyResult): void {
  const closeAfter = forwardFinder(text, M2_CLOSE)
  for (const m of text.matchAll(M2_OPEN)) {
    const start = m.index
    const bodyStart = start + m[0].length
    const closeAt = closeAfter(bodyStart)
    const nextAt = text.indexOf('<minimax:tool_call>', bodyStart)
    // A block never closed runs to the next block (or the end), never over it.
    const closed = closeAt !== -1 && (nextAt === -1 || closeAt < nextAt)
    const bodyEnd = closed ? closeAt : nextAt === -1 ? text.length : nextAt
    const body = text.slice(bodyStart, bodyEnd)
    const end = closed ? closeAt + M2_CLOSE.length : bodyEnd
    const calls: RawCall[] = []
    let problem: string | undefined
    for (const inv of body.matchAll(INVOKE)) {
      const name = attribute(inv[1], 'name')?.trim()
      if (!name) problem ??= 'an <invoke> has no name'
      else if (inv[3] !== '</invoke>') problem ??= `the <invoke name="${name}"> is not closed with </invoke>`
      else {
        const args: Record<string, string> = {}
        let rest = inv[2]
        for (const p of inv[2].matchAll(PARAM)) {
          const key = attribute(p[1], 'name')
          if (key) args[key] = p[2].replace(/^\n/, '').replace(/\n$/, '')
          rest = rest.replace(p[0], '')
        }
        if (rest.trim() !== '')
          problem ??= `unexpected text ${JSON.stringify(quote(rest))} in <invoke name="${name}">`
        calls.push({ name, arguments: args })
      }
    }
    if (calls.length === 0) problem ??= 'the <minimax:tool_call> block holds no <invoke>'
    if (problem) out.broken.push({ start, end, problem })
    else out.spans.push({ start, end, calls, kind: 'markup' })
  }
}

function parseM1(text: string, out: FamilyResult): void {
  let cutOff = false
  for (const m of text.matchAll(M1_OPEN)) {
    if (cutOff) break // the rest of the text already belongs to a call cut off mid-JSON
    const start = m.index
    const calls: RawCall[] = []
    let problem: string | undefined
    let i = skipSpace(text, start + m[0].length)
    // Hy3 wraps GLM-style <tool_call> blocks in <tool_calls>: the glm family reads those.
    if (text.startsWith('<tool_call>', i)) continue
    // Hunyuan-A13B and Jamba write one JSON list of calls instead of one object per line.
    const listed = text[i] === '['
    if (listed) i = skipSpace(text, i + 1)
    // A sequence of JSON objects, one per call (vLLM wants one per line; any spacing is read).
    while (i < text.length && text[i] === '{') {
      const end = balancedEnd(text, i)
      if (end === -1) {
        problem = 'a call in <tool_calls> is cut off before its JSON closes'
        i = text.length
        cutOff = true
        break
      }
      const parsed = parseJsonLoose(text.slice(i, end))
      const call = parsed.ok ? namedCall(parsed.value) : `a call does not parse as JSON (${parsed.error})`
      if (typeof call === 'string') problem ??= `${call} in <tool_calls>`
      else calls.push(call)
      i = skipSpace(text, end)
      if (listed && text[i] === ',') i = skipSpace(text, i + 1)
    }
    if (listed && !cutOff) {
      if (text[i] === ']') i = skipSpace(text, i + 1)
      else problem ??= 'the list of calls in <tool_calls> is not closed with ]'
    }
    let end = i
    if (text.startsWith(M1_CLOSE, i)) end = i + M1_CLOSE.length
    else if (i < text.length) {
      // Not JSON and not the closing tag: something this format does not allow.
      const close = text.indexOf(M1_CLOSE, i)
      if (calls.length === 0 && close === -1) continue // prose mentioning the tag
      problem ??= `unexpected text ${JSON.stringify(quote(text.slice(i, close === -1 ? undefined : close)))} in <tool_calls>`
      end = close === -1 ? text.length : close + M1_CLOSE.length
    }
    if (!problem && calls.length === 0) problem = 'the <tool_calls> block holds no call'
    if (problem) out.broken.push({ start, end, problem })
    else out.spans.push({ start, end, calls, kind: 'markup' })
  }
}

export const minimax: ToolCallFamily = {
  id: 'minimax',
  models: 'MiniMax-M2 (and M2.1), MiniMax-M1, Hunyuan-A13B, Jamba',
  detect: (text) => text.includes('<minimax:tool_call>') || text.includes('<tool_calls>'),
  parse(text) {
    const out: FamilyResult = { spans: [], broken: [] }
    parseM2(text, out)
    parseM1(text, out)
    return out
  },
  example:
    '<minimax:tool_call>\n<invoke name="read_file">\n<parameter name="path">src/main.ts</parameter>\n</invoke>\n</minimax:tool_call>',
}
