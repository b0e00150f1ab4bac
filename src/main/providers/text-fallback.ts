import type { ToolCall } from '../../shared/protocol'
import type { ToolSpec } from '../tools/types'
import { newCallId } from './ids'
import type { ModelTurn } from './types'

/**
 * Tool calls written as text, for models without native calling or whose server-side
 * parser missed them (qwen2.5-coder's bare JSON through Ollama, reference §3.5, §5):
 * Hermes `<tool_call>{json}</tool_call>` (several; the last may be unterminated, as
 * vLLM accepts), Qwen3-Coder `<function=name><parameter=p>…`, bare JSON with
 * `"arguments"` or Llama's `"parameters"`, the same in a ```json fence, several back to
 * back, and Mistral `[TOOL_CALLS][…]`. Only names in `knownToolNames` count, so prose
 * that merely contains JSON is left alone.
 *
 * Qwen3-Coder parameter values are kept as strings: we do not know the schema here, and
 * the tools coerce numbers written as strings.
 */
export function parseTextToolCalls(
  text: string,
  knownToolNames: Iterable<string>,
): { calls: ToolCall[]; text: string } {
  const known = new Set(knownToolNames)
  const found: Array<{ start: number; end: number; calls: ToolCall[] }> = []
  const taken = (start: number, end: number) => found.some((f) => start < f.end && end > f.start)
  const add = (start: number, end: number, calls: ToolCall[]) => {
    if (calls.length > 0 && !taken(start, end)) found.push({ start, end, calls })
  }

  for (const m of text.matchAll(/<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g)) {
    add(m.index, m.index + m[0].length, parseBlock(m[1], known))
  }
  for (const m of text.matchAll(/<function=([^>\n]+)>([\s\S]*?)(?:<\/function>|$)/g)) {
    add(m.index, m.index + m[0].length, qwenCoderCall(m[1], m[2], known))
  }
  for (const m of text.matchAll(/\[TOOL_CALLS\]\s*/g)) {
    const start = m.index + m[0].length
    const end = balancedEnd(text, start)
    if (end > 0) add(m.index, end, callsFromJson(safeParse(text.slice(start, end)), known))
    else {
      // Newer Mistral form: [TOOL_CALLS]name[ARGS]{…}
      const named = /^([\w.-]+)\[ARGS\]/.exec(text.slice(start))
      const argsStart = named ? start + named[0].length : -1
      const argsEnd = named ? balancedEnd(text, argsStart) : -1
      if (named && argsEnd > 0) {
        add(
          m.index,
          argsEnd,
          callsFromJson({ name: named[1], arguments: safeParse(text.slice(argsStart, argsEnd)) }, known),
        )
      }
    }
  }
  for (const m of text.matchAll(/```[ \t]*(?:json|tool_call)?[ \t]*\n([\s\S]*?)```/gi)) {
    add(m.index, m.index + m[0].length, parseJsonSequence(m[1], known))
  }
  // Bare JSON objects. Only braces soon followed by a "name"/"function" key are tried,
  // so long prose full of code does not cost a scan per brace.
  if ([...known].some((n) => text.includes(`"${n}"`))) {
    for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) {
      if (taken(i, i + 1) || !/"(name|function)"\s*:/.test(text.slice(i, i + 200))) continue
      const end = balancedEnd(text, i)
      if (end < 0) continue
      const calls = callsFromJson(safeParse(text.slice(i, end)), known)
      if (calls.length > 0) {
        add(i, end, calls)
        i = end - 1
      }
    }
  }

  found.sort((a, b) => a.start - b.start)
  let rest = ''
  let pos = 0
  for (const f of found) {
    rest += text.slice(pos, f.start)
    pos = f.end
  }
  rest += text.slice(pos)
  return {
    calls: found.flatMap((f) => f.calls),
    text: found.length > 0 ? rest.replace(/\n{3,}/g, '\n\n').trim() : text,
  }
}

/**
 * Uses the text fallback on a finished turn that has text and no native calls.
 * The remaining prose becomes the turn's text.
 */
export function applyTextFallback(turn: ModelTurn, tools: ToolSpec[]): ModelTurn {
  if (turn.toolCalls.length > 0 || turn.text.trim() === '' || tools.length === 0) return turn
  const parsed = parseTextToolCalls(
    turn.text,
    tools.map((t) => t.name),
  )
  if (parsed.calls.length === 0) return turn
  return { ...turn, text: parsed.text, toolCalls: parsed.calls, textToolCalls: true }
}

/** The system-prompt block for models without native tool calling (Hermes / Qwen format). */
export function textToolPrompt(tools: ToolSpec[]): string {
  const lines = tools.map((t) =>
    JSON.stringify({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }),
  )
  return [
    '# Tools',
    '',
    'You may call one or more functions to assist with the user query.',
    '',
    'You are provided with function signatures within <tools></tools> XML tags:',
    '<tools>',
    ...lines,
    '</tools>',
    '',
    'For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:',
    '<tool_call>',
    '{"name": <function-name>, "arguments": <args-json-object>}',
    '</tool_call>',
  ].join('\n')
}

/** An assistant's calls written back as text, for a transcript sent to a text-tools model. */
export function renderTextToolCalls(calls: ToolCall[]): string {
  return calls
    .map(
      (c) =>
        `<tool_call>\n{"name": ${JSON.stringify(c.name)}, "arguments": ${jsonOrString(c.arguments)}}\n</tool_call>`,
    )
    .join('\n')
}

/** A tool result as the user-turn text a text-tools model expects. */
export function renderToolResponse(output: string): string {
  return `<tool_response>\n${output}\n</tool_response>`
}

function jsonOrString(args: string): string {
  const parsed = safeParse(args)
  return parsed === undefined ? JSON.stringify(args) : JSON.stringify(parsed)
}

function parseBlock(body: string, known: Set<string>): ToolCall[] {
  const trimmed = body.trim()
  const fn = /^<function=([^>\n]+)>([\s\S]*?)(?:<\/function>|$)/.exec(trimmed)
  if (fn) return qwenCoderCall(fn[1], fn[2], known)
  const unfenced = trimmed.replace(/^```(?:json)?\s*/i, '').replace(/```$/, '')
  return parseJsonSequence(unfenced, known)
}

/** One or more JSON objects (or an array) back to back. */
function parseJsonSequence(body: string, known: Set<string>): ToolCall[] {
  const calls: ToolCall[] = []
  let i = 0
  while (i < body.length) {
    const c = body[i]
    if (c === '{' || c === '[') {
      const end = balancedEnd(body, i)
      if (end < 0) break
      calls.push(...callsFromJson(safeParse(body.slice(i, end)), known))
      i = end
    } else if (/\s|,/.test(c)) i++
    else return calls.length > 0 ? calls : []
  }
  return calls
}

function qwenCoderCall(rawName: string, body: string, known: Set<string>): ToolCall[] {
  const name = rawName.trim()
  if (!known.has(name)) return []
  const args: Record<string, string> = {}
  for (const p of body.matchAll(/<parameter=([^>]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g)) {
    args[p[1].trim()] = p[2].replace(/^\r?\n/, '').replace(/\r?\n$/, '')
  }
  return [{ id: newCallId(), name, arguments: JSON.stringify(args) }]
}

function callsFromJson(value: unknown, known: Set<string>): ToolCall[] {
  if (Array.isArray(value)) {
    const calls = value.flatMap((v) => callsFromJson(v, known))
    return calls.length === value.length ? calls : []
  }
  if (!value || typeof value !== 'object') return []
  let obj = value as Record<string, unknown>
  if (obj.function && typeof obj.function === 'object') obj = obj.function as Record<string, unknown>
  const name = obj.name
  if (typeof name !== 'string' || !known.has(name)) return []
  const args = obj.arguments ?? obj.parameters ?? {}
  const text = typeof args === 'string' ? (args.trim() === '' ? '{}' : args) : JSON.stringify(args)
  return [{ id: newCallId(), name, arguments: text }]
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** End (exclusive) of the balanced JSON object/array starting at `start`, string-aware; -1 if none. */
function balancedEnd(text: string, start: number): number {
  const open = text[start]
  if (open !== '{' && open !== '[') return -1
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}
