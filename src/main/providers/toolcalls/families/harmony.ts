import type { FamilyResult, ToolCallFamily } from '../types'
import { forwardFinder, openerBalance, parseJsonLoose, skipSpace, type Balance } from '../json-scan'
import { withoutTrailingEos } from './markup-util'

/*
 * GPT-OSS "harmony": every message is `<|start|>ROLE<|channel|>CHANNEL [to=RECIPIENT] [<|constrain|>json]<|message|>BODY<|end|>`.
 * A call is an assistant message with a recipient (`to=functions.NAME`), ended by
 * `<|call|>` (or `<|end|>`). Servers drop parts of the header: `<|start|>assistant` may
 * be missing, `to=` may come before `<|channel|>`, `<|constrain|>` may be absent.
 *
 * The analysis channel is reasoning: a `to=` in its header is never a call. The final
 * channel (and a commentary preamble without recipient) is the answer: its header and
 * terminator are returned as spans without calls, so what is left is the answer's text.
 */
const MESSAGE = '<|message|>'
const TERMINATORS = ['<|call|>', '<|end|>', '<|return|>', '<|start|>']
// A header written without `<|start|>`: an optional role and recipient before `<|channel|>`.
const LOOSE_HEAD = /(?:\bassistant\b)?[ \t]*(?:to=[^\s<]+)?[ \t]*$/

interface Header {
  start: number
  role?: string
  channel?: string
  recipient?: string
}

function readHeader(text: string, from: number, messageAt: number): Header | undefined {
  const segment = text.slice(from, messageAt)
  const startTag = segment.lastIndexOf('<|start|>')
  let start: number
  if (startTag !== -1) start = from + startTag
  else {
    const channelAt = segment.indexOf('<|channel|>')
    const before = channelAt === -1 ? segment : segment.slice(0, channelAt)
    const loose = LOOSE_HEAD.exec(before)
    if (channelAt === -1 && !/to=\S/.test(loose?.[0] ?? '')) return undefined // a stray <|message|>
    start = from + (loose ? loose.index : before.length)
  }
  const head = text.slice(start, messageAt)
  const role =
    /^<\|start\|>\s*([^\s<]+)/.exec(head)?.[1] ?? (/^\s*assistant\b/.test(head) ? 'assistant' : undefined)
  const channel = /<\|channel\|>\s*([\w-]+)/.exec(head)?.[1]
  const recipient = /\bto=([^\s<]+)/.exec(head)?.[1]
  // `<|start|>functions.x to=assistant` is a tool's answer, not a call.
  // `to=user` (Glimmer's answer) addresses the reader, not a tool.
  const isCall =
    recipient !== undefined &&
    recipient !== 'assistant' &&
    recipient !== 'user' &&
    !role?.startsWith('functions.')
  return { start, role, channel, recipient: isCall ? recipient : undefined }
}

/** Per-parse searches, so an answer of many messages is searched once, not once per message. */
interface Finders {
  terminators: Array<(from: number) => number>
  balance: Balance
}

/** Where the body ends and where the message ends (past its terminator). */
function bodyBounds(
  text: string,
  bodyStart: number,
  json: boolean,
  find: Finders,
): { bodyEnd: number; end: number } {
  let from = bodyStart
  if (json) {
    const i = skipSpace(text, bodyStart)
    const close = text[i] === '{' ? find.balance(text, i) : -1
    if (close !== -1) from = close // a `<|call|>` inside a JSON string does not end the call
  }
  let best = -1
  let token = ''
  for (const [k, t] of TERMINATORS.entries()) {
    const at = find.terminators[k](from)
    if (at !== -1 && (best === -1 || at < best)) [best, token] = [at, t]
  }
  if (best === -1) return { bodyEnd: text.length, end: text.length }
  return { bodyEnd: best, end: token === '<|start|>' ? best : best + token.length }
}

export const harmony: ToolCallFamily = {
  id: 'harmony',
  models: 'GPT-OSS 20B/120B (OpenAI harmony format)',
  detect: (text) => text.includes(MESSAGE) && (text.includes('<|channel|>') || text.includes('to=')),
  parse(text) {
    const out: FamilyResult = { spans: [], broken: [] }
    const find: Finders = {
      terminators: TERMINATORS.map((t) => forwardFinder(text, t)),
      balance: openerBalance(text, MESSAGE),
    }
    let pos = 0
    for (let at = text.indexOf(MESSAGE); at !== -1; at = text.indexOf(MESSAGE, pos)) {
      const header = readHeader(text, pos, at)
      const bodyStart = at + MESSAGE.length
      const { bodyEnd, end } = bodyBounds(text, bodyStart, header?.recipient !== undefined, find)
      pos = Math.max(end, bodyStart)
      if (!header || header.channel === 'analysis') continue // reasoning: never a call
      // Glimmer's ATEM markup after the same header shape: the glimmer family reads it.
      if (text.startsWith('<atem:function_calls>', skipSpace(text, bodyStart))) continue
      if (header.recipient === undefined) {
        if (header.role !== undefined && header.role !== 'assistant') continue
        // The answer (final channel or a preamble): strip its markup, keep its text.
        out.spans.push({ start: header.start, end: bodyStart, calls: [], kind: 'markup' })
        if (end > bodyEnd) out.spans.push({ start: bodyEnd, end, calls: [], kind: 'markup' })
        continue
      }
      const name = header.recipient
      const body = withoutTrailingEos(text.slice(bodyStart, bodyEnd)).trim()
      // Nothing at all after `<|message|>`: the answer was cut off before the arguments.
      if (body === '' && text.slice(bodyStart).trim() === '') {
        out.broken.push({
          start: header.start,
          end,
          problem: `the message to=${name} is cut off before its arguments`,
        })
        continue
      }
      const parsed = body === '' ? { ok: true as const, value: {} } : parseJsonLoose(body)
      if (parsed.ok) {
        out.spans.push({
          start: header.start,
          end,
          calls: [{ name, arguments: parsed.value }],
          kind: 'markup',
        })
      } else {
        out.broken.push({
          start: header.start,
          end,
          problem: `the message to=${name} does not hold JSON arguments (${parsed.error})`,
        })
      }
    }
    return out
  },
  example:
    '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "src/main.ts"}<|call|>',
}
