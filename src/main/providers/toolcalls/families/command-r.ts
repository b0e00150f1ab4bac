import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { balancedEnd, forwardFinder, isObject, parseJsonLoose } from '../json-scan'

/*
 * Cohere Command R7B / Command A: `<|START_THINKING|>plan<|END_THINKING|><|START_ACTION|>[{"tool_call_id": "0",
 * "tool_name": NAME, "parameters": {…}}]<|END_ACTION|>`. The thinking part is reasoning:
 * an action written inside it is never run. Output often starts inside the thinking
 * (the template opens it), so everything before the last `<|END_THINKING|>` counts as
 * thinking, and an unclosed `<|START_THINKING|>` swallows the rest.
 */
/**
 * Command R+ writes `Action:` then a ```json fence holding the same list. Fenced JSON
 * is also how lists are shown, so it is kind `json`: it acts only as the whole answer.
 */
const PLUS_ACTION = /(?<=^|\n)[ \t]*Action:[ \t]*\n?[ \t]*```(?:json)?[ \t]*\n([\s\S]*?)\n?[ \t]*```/g
const ACTION_OPEN = '<|START_ACTION|>'
const ACTION_CLOSE = '<|END_ACTION|>'

function thinkingEnd(text: string): number {
  const close = text.lastIndexOf('<|END_THINKING|>')
  const open = text.lastIndexOf('<|START_THINKING|>')
  if (open > close) return text.length // still thinking when the output stopped
  return close === -1 ? 0 : close + '<|END_THINKING|>'.length
}

/** The action list; Command R sometimes drops the comma between two actions, which is read as a list still. */
function actionList(json: string): unknown[] | string {
  const parsed = parseJsonLoose(json)
  if (parsed.ok) return Array.isArray(parsed.value) ? parsed.value : [parsed.value]
  const items: unknown[] = []
  let i = json.startsWith('[') ? 1 : 0
  for (;;) {
    while (i < json.length && /[\s,]/.test(json[i])) i++
    if (json[i] !== '{') break
    const end = balancedEnd(json, i)
    const item = end === -1 ? undefined : parseJsonLoose(json.slice(i, end))
    if (!item?.ok) break
    items.push(item.value)
    i = end
  }
  const rest = json.slice(i).trim()
  if (items.length > 0 && (rest === ']' || rest === '')) return items
  return `the JSON after <|START_ACTION|> does not parse (${parsed.error})`
}

function readActions(json: string): RawCall[] | string {
  const list = actionList(json)
  if (typeof list === 'string') return list
  const calls: RawCall[] = []
  for (const item of list) {
    if (!isObject(item) || typeof item.tool_name !== 'string' || item.tool_name.trim() === '') {
      return 'an action has no "tool_name"'
    }
    const args = item.parameters ?? {}
    if (!isObject(args) && typeof args !== 'string')
      return `"parameters" of ${item.tool_name} is not an object`
    calls.push({ name: item.tool_name.trim(), arguments: args })
  }
  return calls.length > 0 ? calls : 'the action list is empty'
}

export const commandR: ToolCallFamily = {
  id: 'command-r',
  models: 'Cohere Command R7B, Command A, Command R+',
  detect: (text) => text.includes(ACTION_OPEN) || text.includes('Action:'),
  parse(text) {
    const out: FamilyResult = { spans: [], broken: [] }
    const from = thinkingEnd(text)
    const closeAfter = forwardFinder(text, ACTION_CLOSE)
    for (let at = text.indexOf(ACTION_OPEN, from); at !== -1; at = text.indexOf(ACTION_OPEN, at + 1)) {
      const bodyStart = at + ACTION_OPEN.length
      const closeAt = closeAfter(bodyStart)
      const nextAt = text.indexOf(ACTION_OPEN, bodyStart)
      // An action never closed runs to the next one (or the end), never over it.
      const closed = closeAt !== -1 && (nextAt === -1 || closeAt < nextAt)
      const bodyEnd = closed ? closeAt : nextAt === -1 ? text.length : nextAt
      const body = text.slice(bodyStart, bodyEnd).trim()
      const end = closed ? closeAt + ACTION_CLOSE.length : bodyEnd
      const calls = readActions(body)
      if (typeof calls === 'string') out.broken.push({ start: at, end, problem: calls })
      else out.spans.push({ start: at, end, calls, kind: 'markup' })
    }
    for (const m of text.matchAll(PLUS_ACTION)) {
      if (m.index < from) continue
      const calls = readActions(m[1].trim())
      // Not an action list (no tool_name): some other JSON after the word, not this format.
      if (typeof calls !== 'string')
        out.spans.push({ start: m.index, end: m.index + m[0].length, calls, kind: 'json' })
    }
    return out
  },
  example:
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "src/main.ts"}}]<|END_ACTION|>',
}
