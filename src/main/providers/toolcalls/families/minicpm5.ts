import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { isObject, parseJsonLoose } from '../json-scan'
import { quote } from './markup-util'

/*
 * MiniCPM 5 (vLLM's minicpm5xml_tool_parser): XML calls with no wrapper,
 *   <function name="read_file"><param name="path">src/a.ts</param></function>
 * values as text or `<![CDATA[…]]>`. Its tokenizer can leave the space in the tag as
 * `Ġ` (`<functionĠname=…>`) or drop it (`<functionname=…>`); both are read. A call
 * whose `</function>` never came, a `<param>` without a name or a name given twice
 * runs nothing and is reported. Values are text; `../index.ts` converts them to the
 * schema's types (and refuses arguments the tool does not have, where upstream guesses).
 * A body that is one JSON object is the arguments (Hermes 2 Pro's `<function name="…">{…}</function>`).
 */

const SPACE = '(?:\\s+|\\u0120|)'
const FUNCTION = new RegExp(`<function${SPACE}name\\s*=\\s*"([^"<>]*)"\\s*>`, 'g')
const FUNCTION_END = /<\/function>|<function(?:\s|\u0120|name=)/g
const PARAM = new RegExp(
  `<param(?:${SPACE}name\\s*=\\s*"([^"<>]*)")?\\s*>(?:<!\\[CDATA\\[([\\s\\S]*?)\\]\\]>|([\\s\\S]*?))</param>`,
  'g',
)

function readBody(name: string, body: string): RawCall | string {
  // The same wrapper around JSON arguments is Hermes 2 Pro's, as llama.cpp's parser reads it
  // (tests/test-chat.cpp, COMMON_CHAT_FORMAT_HERMES_2_PRO: `<function name="special_function">\n{"arg1": 1}\n</function>`).
  const json = body.trim()
  if (json.startsWith('{')) {
    const parsed = parseJsonLoose(json)
    if (parsed.ok && isObject(parsed.value)) return { name, arguments: parsed.value }
  }
  const args: Record<string, string> = {}
  let problem: string | undefined
  const rest = body.replace(
    PARAM,
    (_all, key: string | undefined, cdata: string | undefined, text: string) => {
      if (key === undefined || key.trim() === '') problem ??= `a <param> in the call to ${name} has no name`
      else if (Object.hasOwn(args, key)) problem ??= `the call to ${name} gives ${key} twice`
      else args[key] = cdata ?? decodeEntities(text)
      return ''
    },
  )
  if (problem) return problem
  if (rest.trim() !== '') return `unexpected text ${JSON.stringify(quote(rest))} in the call to ${name}`
  return { name, arguments: args }
}

/** The five XML entities only (no DTD, so `&xxe;` stays as written). */
function decodeEntities(text: string): string {
  const map: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' }
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_all, e: string) => map[e])
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (const m of text.matchAll(FUNCTION)) {
    const bodyStart = m.index + m[0].length
    FUNCTION_END.lastIndex = bodyStart
    const stop = FUNCTION_END.exec(text)
    const name = m[1].trim()
    if (!stop || stop[0] !== '</function>') {
      const end = stop ? stop.index : text.length
      out.broken.push({
        start: m.index,
        end,
        problem: `the call to ${name || 'a tool'} is not closed with </function>`,
      })
      continue
    }
    const end = stop.index + stop[0].length
    const read = name === '' ? 'a <function> has no name' : readBody(name, text.slice(bodyStart, stop.index))
    if (typeof read === 'string') out.broken.push({ start: m.index, end, problem: read })
    else out.spans.push({ start: m.index, end, calls: [read], kind: 'markup' })
  }
  return out
}

export const minicpm5: ToolCallFamily = {
  id: 'minicpm5',
  models: 'MiniCPM 5 (<function name="…"><param name="…">)',
  detect: (text) => /<function(?:\s|\u0120)*name\s*=\s*"/.test(text),
  parse,
  example: '<function name="read_file"><param name="path">src/main.ts</param></function>',
}
