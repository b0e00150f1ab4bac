import type { FamilyResult, ToolCallFamily } from '../types'
import { forwardFinder, isObject, parseJson, parseJsonLoose } from '../json-scan'
import { quote } from './markup-util'
import { minOf } from '../../../../shared/arrays'
import { escapeRegExp } from '../../../../shared/regexp'

/*
 * GLM-4.5/4.6/4.7: `<tool_call>NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>…</tool_call>`,
 * GLM-4.7 also without the newlines. `<tool_call>` is shared with Hermes, whose body is
 * JSON: this family claims a block only when its body starts with a bare name followed
 * by `<arg_key>` or `</tool_call>`, so Hermes blocks are never read twice.
 *
 * Laguna (Ollama's model/parsers/laguna.go) writes the name line, then JSON arguments.
 * Tencent Hy3 writes `<tool_calls><tool_call>NAME<tool_sep><arg_key>…</tool_call></tool_calls>`,
 * Hy4 the same with a suffix on every tag (`<tool_call:opensource>`). iQuest Coder V2
 * writes `<iquestcoder_tool_call>NAME<arg_key>…</iquestcoder_tool_call>`.
 *
 * Values stay text: the template writes non-strings as JSON, but which ones are
 * non-strings only the tool's schema knows (`index.ts` checks and coerces).
 */
/** Hy4 suffixes every tag (`<tool_call:opensource>`): the same grammar, tags spelled per suffix. */
interface Tags {
  open: RegExp
  openTag: string
  close: string
  valueOpen: string
  valueClose: string
  pair: RegExp
  wrapper: RegExp
}

function tags(sfx: string, tag = 'tool_call'): Tags {
  const s = escapeRegExp(sfx)
  return {
    open: new RegExp(
      `<${tag}${s}>\\s*([^\\s<>{}[\\]"'\`]+)\\s*(?:<tool_sep>\\s*)?(?=<arg_key${s}>|<arg_value${s}>|<\\/${tag}${s}>|\\{|$)`,
      'g',
    ),
    openTag: `<${tag}${sfx}>`,
    close: `</${tag}${sfx}>`,
    valueOpen: `<arg_value${sfx}>`,
    valueClose: `</arg_value${sfx}>`,
    pair: new RegExp(`<(arg_key|arg_value)${s}>([\\s\\S]*?)<\\/\\1${s}>`, 'g'),
    // Hy3/Hy4's wrapper around the calls: protocol, dropped from the answer once they run.
    wrapper: new RegExp(
      `<tool_calls${s}>(?=\\s*<tool_call${s}>)|(?<=<\\/tool_call${s}>\\s*)<\\/tool_calls${s}>`,
      'g',
    ),
  }
}

/** iQuest Coder V2 (vLLM's iquest_coder_v2_tool_parser): the same grammar in its own call tag. */
const IQUEST = '<iquestcoder_tool_call>'

export const glm: ToolCallFamily = {
  id: 'glm',
  models: 'GLM-4.5, GLM-4.6, GLM-4.7 (Z.ai), Laguna, Hy3/Hy4 (Tencent), iQuest Coder V2',
  detect: (text) => /<tool_call(?::[\w.-]+)?>\s*[^\s{[<]/.test(text) || text.includes(IQUEST),
  parse(text) {
    const out: FamilyResult = { spans: [], broken: [] }
    const suffixes = new Set([...text.matchAll(/<tool_call(:[\w.-]+)?>/g)].map((m) => m[1] ?? ''))
    for (const sfx of suffixes) parseTags(text, tags(sfx), out)
    if (text.includes(IQUEST)) parseTags(text, tags('', 'iquestcoder_tool_call'), out)
    return out
  },
  example: '<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>src/main.ts</arg_value>\n</tool_call>',
}

function parseTags(text: string, t: Tags, out: FamilyResult): void {
  const found = out.spans.length
  const closeAfter = forwardFinder(text, t.close)
  for (const m of text.matchAll(t.open)) {
    const start = m.index
    const name = m[1].trim()
    const bodyStart = start + m[0].length
    const { closeAt, nextOpen } = blockEnd(text, bodyStart, t, closeAfter)
    const closed = closeAt !== -1 && (nextOpen === -1 || closeAt < nextOpen)
    const bodyEnd = closed ? closeAt : nextOpen === -1 ? text.length : nextOpen
    const end = closed ? closeAt + t.close.length : bodyEnd
    const body = text.slice(bodyStart, bodyEnd)
    if (!closed) {
      // Arguments begun, or the message ending right after the name: a cut-off call.
      // Anything else (a bare word then prose) is not this format.
      if (/<arg_(key|value)[:>]/.test(body) || body.trim() === '') {
        out.broken.push({ start, end, problem: `the ${t.openTag} for ${name} is not closed with ${t.close}` })
      }
      continue
    }
    const args = body.trimStart().startsWith('{') ? jsonArgs(body) : readArgs(body, t.pair)
    if (args === undefined) continue
    if (typeof args === 'string') out.broken.push({ start, end, problem: `${args} in the call to ${name}` })
    else out.spans.push({ start, end, calls: [{ name, arguments: args }], kind: 'markup' })
  }
  if (out.spans.length > found) {
    for (const w of text.matchAll(t.wrapper))
      out.spans.push({ start: w.index, end: w.index + w[0].length, calls: [], kind: 'markup' })
  }
}

/**
 * Where the block that starts at `from` closes, and where the next block opens (one
 * opening first means this one was never closed). Tags inside an `<arg_value>` are the
 * value's text (`contains </think> and <tool_call> strings`), so values are stepped over.
 */
function blockEnd(
  text: string,
  from: number,
  t: Tags,
  closeAfter: (from: number) => number,
): { closeAt: number; nextOpen: number } {
  const { valueOpen, valueClose } = t
  let at = from
  for (;;) {
    const closeAt = closeAfter(at)
    const nextOpen = text.indexOf(t.openTag, at)
    const value = text.indexOf(valueOpen, at)
    const first = minOf([closeAt, nextOpen].map((i) => (i < 0 ? Infinity : i)))
    if (value < 0 || value > first) return { closeAt, nextOpen }
    const valueEnd = text.indexOf(valueClose, value + valueOpen.length)
    if (valueEnd < 0) return { closeAt: -1, nextOpen: -1 }
    at = valueEnd + valueClose.length
  }
}

/**
 * Keys and values in order; GLM-4.6 sometimes groups all keys before all values, which
 * Ollama pairs by position, so pairing is by order, not adjacency.
 */
function readArgs(body: string, pair: RegExp): Record<string, string> | string {
  const keys: string[] = []
  const values: string[] = []
  let rest = body
  for (const m of body.matchAll(pair)) {
    ;(m[1] === 'arg_key' ? keys : values).push(m[2])
    rest = rest.replace(m[0], '')
  }
  if (rest.trim() !== '') return `unexpected text ${JSON.stringify(quote(rest))}`
  if (keys.length !== values.length) return `${keys.length} <arg_key> but ${values.length} <arg_value>`
  const args: Record<string, string> = {}
  keys.forEach((k, i) => (args[k.trim()] = jsonString(values[i]) ?? values[i]))
  return args
}

/**
 * A value written as one JSON string literal (`"Seoul"`): HyperCLOVAX SEED Think writes
 * every value as JSON (vLLM's hyperclovax_seed_think parser decodes them); GLM writes
 * strings bare. Numbers and objects stay text for the schema check to convert.
 */
function jsonString(value: string): string | undefined {
  const v = value.trim()
  if (v.length < 2 || v[0] !== '"' || v[v.length - 1] !== '"') return undefined
  const parsed = parseJson(v)
  return parsed.ok && typeof parsed.value === 'string' ? parsed.value : undefined
}

/** `NAME\n{json}`: the arguments as one JSON object (a whole `{name, arguments}` is Hermes's, not this). */
function jsonArgs(body: string): Record<string, unknown> | string | undefined {
  const parsed = parseJsonLoose(body.trim())
  if (!parsed.ok) return `the JSON arguments do not parse (${parsed.error})`
  if (!isObject(parsed.value)) return 'the arguments are not a JSON object'
  if (typeof parsed.value.name === 'string' && Object.hasOwn(parsed.value, 'arguments')) return undefined
  return parsed.value
}
