import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { forwardSearch, parseJsonLoose } from '../json-scan'
import { addBlock, attribute, quote, type Piece } from './markup-util'

/*
 * DeepSeek's special tokens use full-width bars and `▁` between words
 * (`<｜tool▁calls▁begin｜>`). Models and servers also write them with ASCII `|`, with `_`,
 * spaces, or a markdown-escaped `\_` (all four spellings are in llama.cpp's triggers).
 */
const BAR = '[｜|]'
const SEP = '(?:▁|\\\\_|_| )'
const token = (...words: string[]) => `<${BAR}${words.join(SEP)}${BAR}>`

const SECTION_OPEN = new RegExp(`${token('tool', 'calls', 'begin')}|${token('tool', 'calls')}`, 'g')
const SECTION_CLOSE = new RegExp(token('tool', 'calls', 'end'))
const CALL_OPEN = new RegExp(token('tool', 'call', 'begin'), 'g')
const HAS_CALL = new RegExp(token('tool', 'call', 'begin'))
const CALL_CLOSE = new RegExp(token('tool', 'call', 'end'))
const TOOL_SEP = new RegExp(token('tool', 'sep'))
// Other families write between these same tokens: Step-3's <steptml:invoke>, Kimi K2's
// <|tool_call_argument_begin|>. Their own families read those.
const FOREIGN = /<steptml:invoke\b|<\|tool_call_argument_begin\|>/
const END_OF_SENTENCE = new RegExp(`^\\s*${token('end', 'of', 'sentence')}`)

// V3.2 writes calls as DSML tags: <｜DSML｜function_calls>, <｜DSML｜invoke name="…">, …;
// V4 names the block <｜DSML｜tool_calls>.
const DSML = `<${BAR}DSML${BAR}`
const DSML_CLOSE = `</${BAR}DSML${BAR}`
// `toolcalls` without the underscore: a corrupted opener vLLM still recovers (its issue #51914).
const DSML_OPEN = new RegExp(`${DSML}(?:function|tool)_?calls>`, 'g')
const DSML_END = new RegExp(`${DSML_CLOSE}(?:function|tool)_calls>`)
const DSML_INVOKE = new RegExp(
  `${DSML}invoke\\b([^>]*)>([\\s\\S]*?)(${DSML_CLOSE}invoke>|(?=${DSML}invoke\\b)|$)`,
  'g',
)
const DSML_PARAM = new RegExp(`${DSML}parameter\\b([^>]*)>([\\s\\S]*?)${DSML_CLOSE}parameter>`, 'g')

/** One call's body: `NAME<sep>{json}` (V3.1) or `function<sep>NAME\n```json\n{…}\n```` (R1, V3). */
function readCall(body: string): Piece {
  const sep = TOOL_SEP.exec(body)
  if (!sep) return { problem: `a DeepSeek tool call has no <｜tool▁sep｜> (${quote(body)})` }
  const before = body.slice(0, sep.index).trim()
  let after = body.slice(sep.index + sep[0].length)
  let name = before
  // R1/V3: the type `function` comes first and the name sits on the line after the separator.
  const typed = before === 'function' ? /^\s*([^\s`{[]+)[ \t]*(?=\n|```|$)/.exec(after) : null
  if (typed) {
    name = typed[1]
    after = after.slice(typed[0].length)
  }
  if (name === '') return { problem: 'a DeepSeek tool call names no function' }
  const json = after
    .trim()
    .replace(/^```[a-z]*\s*/i, '')
    .replace(/```\s*$/, '')
    .trim()
  // The templates always write the arguments (`{}` at least): none means the answer was cut off.
  if (json === '') return { problem: `the call to ${name} is cut off before its arguments` }
  const parsed = parseJsonLoose(json)
  if (!parsed.ok) return { problem: `the arguments of ${name} do not parse as JSON (${parsed.error})` }
  return { call: { name, arguments: parsed.value } }
}

function parseTokens(text: string, out: FamilyResult): void {
  const claimed: Array<[number, number]> = []
  for (const open of text.matchAll(SECTION_OPEN)) {
    const start = open.index
    // Sections are claimed in order and never overlap: only the last one can hold this opener.
    if (start < (claimed.at(-1)?.[1] ?? 0)) continue
    const bodyStart = start + open[0].length
    const close = SECTION_CLOSE.exec(text.slice(bodyStart))
    const bodyEnd = close ? bodyStart + close.index : text.length
    let end = close ? bodyEnd + close[0].length : text.length
    const eos = END_OF_SENTENCE.exec(text.slice(end))
    if (eos) end += eos[0].length
    claimed.push([start, end])
    const body = text.slice(bodyStart, bodyEnd)
    if (FOREIGN.test(body)) continue
    // A section without the per-call tokens still says what to call: read it as one call.
    const bodies = HAS_CALL.test(body) ? callBodies(body) : body.trim() === '' ? [] : [body]
    addBlock(out, { start, end }, bodies, {
      read: readCall,
      empty: 'the <｜tool▁calls▁begin｜> block holds no tool call',
    })
  }
  // Calls written without the section tokens around them. Sections are in order (one
  // pointer walks them), and closing tokens are searched forward once, not once per call.
  const closeAfter = forwardSearch(text, CALL_CLOSE)
  const nextCall = forwardSearch(text, HAS_CALL)
  let k = 0
  for (const open of text.matchAll(CALL_OPEN)) {
    const start = open.index
    while (k < claimed.length && claimed[k][1] <= start) k++
    if (k < claimed.length && claimed[k][0] <= start) continue
    const bodyStart = start + open[0].length
    const close = closeAfter(bodyStart)
    const next = nextCall(bodyStart)
    const stop = close && (!next || close.index < next.index) ? close.index : (next?.index ?? text.length)
    const end = stop + (close && stop === close.index ? close[0].length : 0)
    const body = text.slice(bodyStart, stop)
    if (FOREIGN.test(body)) continue
    addBlock(out, { start, end }, [body], { read: readCall, empty: 'empty DeepSeek tool call' })
  }
}

/** The text of each `<｜tool▁call▁begin｜>…<｜tool▁call▁end｜>` inside a section. */
function callBodies(section: string): string[] {
  const parts = section.split(CALL_OPEN).slice(1)
  return parts.map((p) => {
    const close = CALL_CLOSE.exec(p)
    return close ? p.slice(0, close.index) : p
  })
}

function parseDsml(text: string, out: FamilyResult): void {
  const claimed: Array<[number, number]> = []
  const closeAfter = forwardSearch(text, DSML_END)
  const opens = [...text.matchAll(DSML_OPEN)]
  for (const [k, open] of opens.entries()) {
    const start = open.index
    const bodyStart = start + open[0].length
    // A block never closed stops at the next block, so unclosed blocks are read once each.
    const stop = k + 1 < opens.length ? opens[k + 1].index : text.length
    const found = closeAfter(bodyStart)
    const close = found && found.index < stop ? found : null
    const body = text.slice(bodyStart, close ? close.index : stop)
    const end = close ? close.index + close[0].length : stop
    const calls: RawCall[] = []
    let problem: string | undefined
    for (const inv of body.matchAll(DSML_INVOKE)) {
      const name = attribute(inv[1], 'name')?.trim()
      if (!name) problem ??= 'an <｜DSML｜invoke> has no name'
      else if (!inv[3]?.startsWith('</')) problem ??= `the <｜DSML｜invoke name="${name}"> is not closed`
      else calls.push({ name, arguments: dsmlParams(inv[2]) })
    }
    if (calls.length === 0) problem ??= 'the <｜DSML｜function_calls> block holds no complete invoke'
    if (problem) out.broken.push({ start, end, problem })
    else out.spans.push({ start, end, calls, kind: 'markup' })
    claimed.push([start, end])
  }
  // An invoke with no block opener around it (vLLM's test_deepseek_v4_malformed_recovery): still
  // the model's special tokens, so it is read when it is closed; the stray block closer goes with it.
  for (const inv of text.matchAll(DSML_INVOKE)) {
    if (claimed.some(([s, e]) => s <= inv.index && inv.index < e)) continue
    const name = attribute(inv[1], 'name')?.trim()
    if (!name || !inv[3]?.startsWith('</')) continue
    let end = inv.index + inv[0].length
    const closer = new RegExp(`^\\s*${DSML_END.source}`).exec(text.slice(end))
    if (closer) end += closer[0].length
    out.spans.push({
      start: inv.index,
      end,
      calls: [{ name, arguments: dsmlParams(inv[2]) }],
      kind: 'markup',
    })
  }
}

/** `string="true"` values are text; `string="false"` ones are JSON (numbers, objects…). */
function dsmlParams(body: string): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  for (const p of body.matchAll(DSML_PARAM)) {
    const key = attribute(p[1], 'name')
    if (!key) continue
    const raw = p[2]
    if (attribute(p[1], 'string') === 'false') {
      const parsed = parseJsonLoose(raw.trim())
      args[key] = parsed.ok ? parsed.value : raw
    } else args[key] = raw
  }
  return args
}

export const deepseek: ToolCallFamily = {
  id: 'deepseek',
  models: 'DeepSeek R1, V3, V3.1, V3.2, V4',
  detect: (text) => /<[｜|](?:tool|DSML)/.test(text),
  parse(text) {
    const out: FamilyResult = { spans: [], broken: [] }
    parseTokens(text, out)
    parseDsml(text, out)
    return out
  },
  example:
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path": "src/main.ts"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
}
