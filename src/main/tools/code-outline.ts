import type { ClassFact, FileFacts, MethodFact } from '../codeindex/types'
import { truncatedItems } from './text'

/* How the code tools show the index's facts to the model: short, one line per item where possible. */

export const signature = (name: string, f: { params: string[]; async: boolean }) =>
  `${f.async ? 'async ' : ''}${name}(${f.params.join(', ')})`

export const lines = (x: { line: number; endLine: number }) => `${x.line}-${x.endLine}`

export function outline(facts: FileFacts): Record<string, unknown> {
  const out: Record<string, unknown> = { language: facts.language, lines: facts.lines }
  if (facts.kind !== 'code') out.kind = facts.kind
  if (facts.note) out.note = facts.note
  if (facts.parseErrors > 0)
    out.parse_errors = `${facts.parseErrors} syntax error(s): the outline covers what the parser could read`
  if (facts.package) out.package = facts.package
  if (facts.config) out.config = facts.config
  if (facts.imports.length > 0) out.imports = facts.imports.map((i) => `${i.source} (line ${i.line})`)
  if (facts.exports.length > 0)
    out.exports = facts.exports.map((e) => (e.from ? `${e.name} from ${e.from}` : e.name))
  if (facts.functions.length > 0)
    out.functions = facts.functions.map((f) => ({
      signature: signature(f.name, f),
      lines: lines(f),
      ...(f.exported ? { exported: true } : {}),
    }))
  if (facts.classes.length > 0) out.classes = facts.classes.map(classSummary)
  if (facts.variables.length > 0)
    out.variables = facts.variables.map(
      (v) => `${v.kind === 'type' ? 'type ' : ''}${v.name} (line ${v.line})`,
    )
  if (facts.todos.length > 0) out.todos = facts.todos.length
  if (facts.entry) out.entry_point = true
  return out
}

export function classSummary(c: ClassFact): Record<string, unknown> {
  const method = (m: MethodFact) =>
    `${m.visibility === 'public' ? '' : m.visibility + ' '}${m.static ? 'static ' : ''}${signature(m.name, m)} (${lines(m)})`
  return {
    name: c.name,
    kind: c.kind,
    lines: lines(c),
    ...(c.exported ? { exported: true } : {}),
    ...(c.extends.length > 0 ? { extends: c.extends } : {}),
    ...(c.implements.length > 0 ? { implements: c.implements } : {}),
    ...(c.properties.length > 0
      ? {
          properties: c.properties.map(
            (p) =>
              `${p.visibility === 'public' ? '' : p.visibility + ' '}${p.static ? 'static ' : ''}${p.name}${p.type ? ': ' + p.type : ''}`,
          ),
        }
      : {}),
    ...(c.methods.length > 0 ? { methods: c.methods.map(method) } : {}),
  }
}

export function cap<T>(items: T[], max: number, result: Record<string, unknown>, hint: string): T[] {
  if (items.length <= max) return items
  result.truncated = `${truncatedItems(max)} ${hint}`
  return items.slice(0, max)
}
