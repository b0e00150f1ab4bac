import {
  budgetedBalance,
  callsFromValue,
  matchAt,
  parseJsonLoose,
  skipSpace,
  type Balance,
} from '../json-scan'
import type { BrokenSpan, RawCall, Span, ToolCallFamily } from '../types'

/*
 * Mistral, every tokenizer version:
 * - v2/v3 (Mistral 7B v0.3, Mixtral, Nemo): `[TOOL_CALLS][{"name":…,"arguments":…}, …]`,
 *   sometimes a single object instead of a list;
 * - v11+ (Mistral Small 3.2, Devstral, Magistral, Ministral 3): `[TOOL_CALLS]name[ARGS]{…}`,
 *   several in a row, `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`, and `[TOOL_CALLS]name{…}` as
 *   vLLM shows it with the `[ARGS]` token dropped;
 * - v11 through vLLM with special tokens skipped: `name{…}` — read only when it is the
 *   whole answer (kind `json`), and `../index.ts` keeps it only for offered tools.
 * Magistral's `[THINK]…[/THINK]` is reasoning, blanked before this runs (../reasoning.ts).
 */

const TOKEN = '[TOOL_CALLS]'
/** `name[ARGS]`, `name[CALL_ID]id[ARGS]`, or `name` right before its JSON (vLLM drops [ARGS] as a special token). */
const NAMED = /\s*([A-Za-z_][\w.-]*)(?:\[CALL_ID\]\s*([\w-]*))?\s*(?:\[ARGS\]\s*|(?=\{))/

function parse(text: string): { spans: Span[]; broken: BrokenSpan[] } {
  const spans: Span[] = []
  const broken: BrokenSpan[] = []
  const balance = budgetedBalance()
  let from = 0
  for (;;) {
    const start = text.indexOf(TOKEN, from)
    if (start < 0) break
    const after = start + TOKEN.length
    const first = skipSpace(text, after)
    const read =
      text[first] === '[' || text[first] === '{'
        ? readList(text, first, balance)
        : readNamed(text, after, balance)
    if (read.problem !== undefined) {
      broken.push({ start, end: read.end, problem: read.problem })
      from = Math.max(read.end, after)
    } else {
      spans.push({ start, end: read.end, calls: read.calls, kind: 'markup' })
      from = read.end
    }
  }
  if (spans.length === 0 && broken.length === 0) {
    const bare = readBare(text, balance)
    if (bare) spans.push(bare)
  }
  return { spans, broken }
}

/** What follows one [TOOL_CALLS]: its calls, or why they cannot be read (`problem` set exactly then). */
type Read = { end: number; calls: RawCall[]; problem?: undefined } | { end: number; problem: string }

/** `[{…},{…}]` or `{…}` right after the token. */
function readList(text: string, at: number, balance: Balance): Read {
  const end = balance(text, at)
  if (end < 0) return { end: text.length, problem: 'the JSON after [TOOL_CALLS] is cut off' }
  const parsed = parseJsonLoose(text.slice(at, end))
  if (!parsed.ok) return { end, problem: `the JSON after [TOOL_CALLS] does not parse (${parsed.error})` }
  const calls = callsFromValue(parsed.value)
  if (!calls)
    return { end, problem: 'the JSON after [TOOL_CALLS] is not a list of {"name", "arguments"} calls' }
  return { end, calls }
}

/** `name[ARGS]{…}` (optionally with `[CALL_ID]id`), repeated, each maybe after its own token. */
function readNamed(text: string, at: number, balance: Balance): Read {
  const calls: RawCall[] = []
  let pos = at
  for (;;) {
    const m = matchAt(NAMED, text, pos)
    if (!m) break
    const argsStart = pos + m[0].length
    const argsEnd = balance(text, argsStart)
    if (argsEnd < 0)
      return {
        end: text.length,
        problem: `the arguments of ${m[1]} after [ARGS] are cut off or not a JSON object`,
      }
    const parsed = parseJsonLoose(text.slice(argsStart, argsEnd))
    if (!parsed.ok)
      return { end: argsEnd, problem: `the arguments of ${m[1]} after [ARGS] do not parse (${parsed.error})` }
    calls.push({ name: m[1], arguments: parsed.value })
    pos = argsEnd
    const next = matchAt(/\s*\[TOOL_CALLS\]/, text, pos)
    if (next) pos += next[0].length
  }
  if (calls.length === 0)
    return {
      end: pos,
      problem: 'nothing after [TOOL_CALLS] reads as a call (expected name[ARGS]{…} or a JSON list)',
    }
  return { end: pos, calls }
}

/** `name{…}name{…}` as the whole answer (v11 with its special tokens dropped). */
function readBare(text: string, balance: Balance): Span | undefined {
  const calls: RawCall[] = []
  let pos = text.search(/\S/)
  if (pos < 0) return undefined
  const start = pos
  let end = pos
  for (;;) {
    const m = matchAt(/\s*([A-Za-z_][\w.-]*)\{/, text, pos)
    if (!m) break
    const argsStart = pos + m[0].length - 1
    const argsEnd = balance(text, argsStart)
    if (argsEnd < 0) return undefined
    const parsed = parseJsonLoose(text.slice(argsStart, argsEnd))
    if (!parsed.ok) return undefined
    calls.push({ name: m[1], arguments: parsed.value })
    pos = end = argsEnd
  }
  if (calls.length === 0 || text.slice(end).replace(/<\/s>/g, '').trim() !== '') return undefined
  return { start, end, calls, kind: 'json' }
}

export const mistral: ToolCallFamily = {
  id: 'mistral',
  models: 'Mistral 7B v0.3, Mixtral, Nemo, Mistral Small 3.x, Devstral, Magistral',
  detect: (text) => text.includes(TOKEN) || /^\s*[A-Za-z_][\w.-]*\{/.test(text),
  parse,
  example: '[TOOL_CALLS]read_file[ARGS]{"path": "src/index.ts"}',
}
