import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { quote } from './markup-util'

/*
 * Upstage Solar Open 2: special tokens around a name line and key/value pairs,
 *   <|tool_call:start|>read_file
 *   <|tool_arg:start|>path<|tool_arg:value|>src/a.ts<|tool_arg:end|>
 *   <|tool_call:end|>
 * one block per call (vLLM's solar_open2_tool_parser). Quirks upstream recovers: a
 * dropped `<|tool_arg:end|>` or `<|tool_call:end|>` before the next token, a repeated
 * argument (the first value wins). A value may hold `<|tool_call:` as text: only a
 * whole token is a boundary. Values are text; `../index.ts` converts them to the
 * schema's types. A block cut off at the end of the answer is reported, not run.
 */

const CALL_START = '<|tool_call:start|>'
const CALL_END = '<|tool_call:end|>'
const ARG_START = '<|tool_arg:start|>'
const ARG_VALUE = '<|tool_arg:value|>'
const ARG_END = '<|tool_arg:end|>'
/** Where a call's body stops: its end token, the next call, or the end of the answer. */
const BODY_STOP = /<\|tool_call:(?:start|end)\|>/g
/** Where an argument's value stops when its end token was dropped. */
const VALUE_STOP = /<\|tool_arg:(?:end|start)\|>|<\|tool_call:(?:start|end)\|>/g

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (let at = text.indexOf(CALL_START); at >= 0;) {
    const bodyStart = at + CALL_START.length
    BODY_STOP.lastIndex = bodyStart
    const stop = BODY_STOP.exec(text)
    const closed = stop?.[0] === CALL_END
    const bodyEnd = stop ? stop.index : text.length
    const end = closed ? bodyEnd + CALL_END.length : bodyEnd
    const read = readBody(text.slice(bodyStart, bodyEnd), closed || stop !== null)
    if (typeof read === 'string') out.broken.push({ start: at, end, problem: read })
    else out.spans.push({ start: at, end, calls: [read], kind: 'markup' })
    at = stop ? (closed ? text.indexOf(CALL_START, end) : stop.index) : -1
  }
  return out
}

/** One call from its body, or why it cannot run. `ended`: another token followed (not cut off). */
function readBody(body: string, ended: boolean): RawCall | string {
  const newline = body.indexOf('\n')
  const nameLine = newline < 0 ? body : body.slice(0, newline)
  if (newline < 0 || nameLine.includes('<|'))
    return `the call ${JSON.stringify(quote(body))} has no name line`
  const name = nameLine.trim()
  if (name === '') return `a ${CALL_START} has no tool name`
  const args: Record<string, string> = {}
  let rest = body.slice(newline + 1)
  for (let i = rest.indexOf(ARG_START); i >= 0; i = rest.indexOf(ARG_START)) {
    const stray = rest.slice(0, i)
    if (stray.trim() !== '') return `unexpected text ${JSON.stringify(quote(stray))} in the call to ${name}`
    const keyStart = i + ARG_START.length
    const valueAt = rest.indexOf(ARG_VALUE, keyStart)
    const nextArg = rest.indexOf(ARG_START, keyStart)
    // A key that runs into the next argument never completes: it is skipped, as upstream does.
    if (valueAt < 0 || (nextArg >= 0 && nextArg < valueAt)) {
      rest = nextArg < 0 ? '' : rest.slice(nextArg)
      continue
    }
    const key = rest.slice(keyStart, valueAt).trim()
    const valueStart = valueAt + ARG_VALUE.length
    VALUE_STOP.lastIndex = valueStart
    const vstop = VALUE_STOP.exec(rest)
    const valueEnd = vstop ? vstop.index : rest.length
    if (!vstop && !ended) return `the value of ${key} in the call to ${name} is cut off`
    if (key !== '' && !Object.hasOwn(args, key)) args[key] = rest.slice(valueStart, valueEnd)
    rest = rest.slice(vstop?.[0] === ARG_END ? valueEnd + ARG_END.length : valueEnd)
  }
  if (rest.trim() !== '') return `unexpected text ${JSON.stringify(quote(rest))} in the call to ${name}`
  if (!ended) return `the call to ${name} is cut off before ${CALL_END}`
  return { name, arguments: args }
}

export const solarOpen: ToolCallFamily = {
  id: 'solar-open',
  models: 'Solar Open 2 (Upstage)',
  detect: (text) => text.includes(CALL_START),
  parse,
  example:
    '<|tool_call:start|>read_file\n<|tool_arg:start|>path<|tool_arg:value|>src/main.ts<|tool_arg:end|>\n<|tool_call:end|>',
}
