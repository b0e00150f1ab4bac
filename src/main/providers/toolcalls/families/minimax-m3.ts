import type { FamilyResult, RawCall, ToolCallFamily } from '../types'
import { addCalls, attribute, quote, tagBlocks } from './markup-util'

/*
 * MiniMax-M3: XML whose real tags carry the prefix `]<]minimax[>[`, so a `<` inside a
 * value is text:
 *   NS<tool_call>\nNS<invoke name="read_file">NS<path>a.ts NS</path>NS</invoke>\nNS</tool_call>
 * An argument with child elements is an object (a repeated child becomes a list, and
 * children all named `item` make a list); a leaf is text, which the schema check converts.
 */

const NS = ']<]minimax[>['
const OPEN = `${NS}<tool_call>`
const CLOSE = `${NS}</tool_call>`
const TAG = /^<(\/?)([\w.:-]+)((?:\s[^>]*)?)>/

interface Node {
  name: string
  attrs: string
  text: string
  children: Node[]
}

/** The element tree of a block body, or why it cannot be read. */
function readTree(body: string): Node | string {
  const root: Node = { name: '', attrs: '', text: '', children: [] }
  const stack = [root]
  const pieces = body.split(NS)
  if (pieces[0].trim() !== '') return `unexpected text ${JSON.stringify(quote(pieces[0]))} in <tool_call>`
  for (const piece of pieces.slice(1)) {
    const m = TAG.exec(piece)
    if (!m) return `a ${NS} marker is not followed by a tag`
    const top = stack[stack.length - 1]
    const after = piece.slice(m[0].length)
    if (m[1] === '') {
      const node: Node = { name: m[2], attrs: m[3], text: after, children: [] }
      top.children.push(node)
      stack.push(node)
    } else {
      if (top.name !== m[2]) return `</${m[2]}> closes <${top.name || 'tool_call'}>`
      stack.pop()
      if (after.trim() !== '') return `unexpected text ${JSON.stringify(quote(after))} after </${m[2]}>`
    }
  }
  if (stack.length > 1) return `<${stack[stack.length - 1].name}> is not closed`
  return root
}

function value(node: Node): unknown {
  if (node.children.length === 0) return node.text
  if (node.children.every((c) => c.name === 'item')) return node.children.map(value)
  return fields(node)
}

function fields(node: Node): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  /** The names given more than once, and the list each now holds. */
  const lists = new Map<string, unknown[]>()
  for (const c of node.children) {
    const v = value(c)
    const list = lists.get(c.name)
    if (list) list.push(v)
    else if (!Object.hasOwn(out, c.name)) out[c.name] = v
    else {
      const repeated = [out[c.name], v]
      out[c.name] = repeated
      lists.set(c.name, repeated)
    }
  }
  return out
}

function parse(text: string): FamilyResult {
  const out: FamilyResult = { spans: [], broken: [] }
  for (const { start, bodyStart, bodyEnd, end, closed } of tagBlocks(text, OPEN, CLOSE)) {
    const tree = closed ? readTree(text.slice(bodyStart, bodyEnd)) : 'the <tool_call> is not closed'
    if (typeof tree === 'string') {
      addCalls(out, start, end, tree)
      continue
    }
    const calls: RawCall[] = []
    let problem: string | undefined
    for (const inv of tree.children) {
      const name = inv.name === 'invoke' ? attribute(inv.attrs, 'name')?.trim() : undefined
      if (!name) problem ??= `<${inv.name}> where an <invoke name="…"> belongs`
      else calls.push({ name, arguments: fields(inv) })
    }
    if (calls.length === 0) problem ??= 'the <tool_call> holds no <invoke>'
    addCalls(out, start, end, problem ?? calls)
  }
  return out
}

export const minimaxM3: ToolCallFamily = {
  id: 'minimax-m3',
  models: 'MiniMax-M3',
  detect: (text) => text.includes(OPEN),
  parse,
  example: `${NS}<tool_call>\n${NS}<invoke name="read_file">${NS}<path>src/main.ts${NS}</path>${NS}</invoke>\n${NS}</tool_call>`,
}
