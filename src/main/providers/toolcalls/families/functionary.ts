import type { FamilyResult, Span, ToolCallFamily } from '../types'
import { balancedEnd, forwardFinder, isObject, matchAt, openerBalance } from '../json-scan'
import { jsonAt, skipMarker } from './json-at'
import { minOf } from '../../../../shared/arrays'

/*
 * MeetKai Functionary.
 * - v3.1 (Llama 3.1 based): `<function=NAME>{json}</function>`, possibly several, with
 *   text around; a python tool gets raw code after `<|python_tag|>`. Qwen3-Coder uses
 *   the same opening tag with `<parameter=…>` inside: only JSON bodies are ours.
 * - v3.2: the answer is a run of `>>>RECIPIENT\n…` turns; `all` is text for the user,
 *   any other recipient is a call with a JSON body. The prompt ends with `>>>`, so the
 *   first recipient usually comes without it (`all\nHello…`, `read_file\n{…}`).
 */

const V31_OPEN = /<function=([\w.-]+)>/g
const V31_CLOSE = '</function>'
const PYTHON_TAG = '<|python_tag|>'
const END_TOKENS = ['<|eom_id|>', '<|eot_id|>']
const RECIPIENT = /(^|>>>)([\w.-]+)[ \t]*\n/g

export const functionary: ToolCallFamily = {
  id: 'functionary',
  models: 'Functionary v3.1, v3.2',
  detect: (text) =>
    /<function=[\w.-]+>\s*\{/.test(text) ||
    text.includes('>>>') ||
    text.includes(PYTHON_TAG) ||
    /^[\w.-]+\n\s*\{/.test(text),
  parse(text: string): FamilyResult {
    const result: FamilyResult = { spans: [], broken: [] }
    readV31(text, result)
    readPythonTag(text, result)
    readV32(text, result)
    return result
  },
  example: '<function=read_file>{"path": "src/main.ts"}</function>',
}

const JSON_BODY = /\s*\{/

function readV31(text: string, result: FamilyResult): void {
  const balance = openerBalance(text, '<function=')
  const closeAfter = forwardFinder(text, V31_CLOSE)
  for (const m of text.matchAll(V31_OPEN)) {
    const bodyAt = m.index + m[0].length
    if (!matchAt(JSON_BODY, text, bodyAt)) continue // `<parameter=…>` bodies belong to qwen3-coder
    const json = jsonAt(text, bodyAt, balance)
    if (json.ok && isObject(json.value)) {
      const end = skipMarker(text, json.end, V31_CLOSE)
      result.spans.push({
        start: m.index,
        end,
        calls: [{ name: m[1], arguments: json.value }],
        kind: 'markup',
      })
    } else {
      const close = closeAfter(bodyAt)
      const why = json.ok ? 'the arguments must be a JSON object' : json.error
      result.broken.push({
        start: m.index,
        end: close < 0 ? text.length : close + V31_CLOSE.length,
        problem: `the JSON after <function=${m[1]}> does not parse (${why})`,
      })
    }
  }
}

/** `<|python_tag|>code` for Functionary's python tool; a JSON body is Llama 3.1's own call (llama3 family). */
function readPythonTag(text: string, result: FamilyResult): void {
  const endFinders = END_TOKENS.map((t) => forwardFinder(text, t))
  for (let at = text.indexOf(PYTHON_TAG); at >= 0; at = text.indexOf(PYTHON_TAG, at + 1)) {
    const bodyAt = at + PYTHON_TAG.length
    if (matchAt(JSON_BODY, text, bodyAt)) continue
    const stops = endFinders.map((next) => next(bodyAt)).filter((i) => i >= 0)
    const codeEnd = stops.length > 0 ? minOf(stops) : text.length
    const code = text.slice(bodyAt, codeEnd).trim()
    if (code === '') continue
    const end =
      stops.length > 0 ? codeEnd + END_TOKENS.find((t) => text.startsWith(t, codeEnd))!.length : codeEnd
    result.spans.push({ start: at, end, calls: [{ name: 'python', arguments: { code } }], kind: 'markup' })
  }
}

function readV32(text: string, result: FamilyResult): void {
  const heads = [...text.matchAll(RECIPIENT)].filter((m) => m[1] === '>>>' || m.index === 0)
  heads.forEach((m, i) => {
    const recipient = m[2]
    if (recipient === 'all') return
    const marked = m[1] === '>>>'
    const bodyAt = m.index + m[0].length
    const segmentEnd = i + 1 < heads.length ? heads[i + 1].index : text.length
    if (matchAt(JSON_BODY, text, bodyAt)) {
      // A turn's JSON ends within its segment: the next `>>>` bounds the scan.
      const json = jsonAt(text, bodyAt, (t, s) => balancedEnd(t, s, segmentEnd))
      if (json.ok && isObject(json.value) && json.end <= segmentEnd) {
        const span: Span = {
          start: m.index,
          end: json.end,
          calls: [{ name: recipient, arguments: json.value }],
          kind: marked ? 'markup' : 'json',
        }
        result.spans.push(span)
      } else if (marked) {
        const why = json.ok ? 'the arguments must be a JSON object' : json.error
        result.broken.push({
          start: m.index,
          end: segmentEnd,
          problem: `the JSON after >>>${recipient} does not parse (${why})`,
        })
      }
    } else if (marked && recipient === 'python' && text.slice(bodyAt, segmentEnd).trim() !== '') {
      // Functionary's python tool takes raw code, not JSON; unmarked, `python\n…` is too likely prose.
      result.spans.push({
        start: m.index,
        end: segmentEnd,
        calls: [{ name: 'python', arguments: { code: text.slice(bodyAt, segmentEnd).trim() } }],
        kind: 'markup',
      })
    }
  })
}
