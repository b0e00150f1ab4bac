import { z } from 'zod'
import { codeTools } from './code'
import { editTools } from './edit'
import { execTools } from './exec'
import { gitTools } from './git'
import { readTools } from './read'
import { reviewTools } from './review'
import type { ToolDefinition, ToolSpec } from './types'
import { errorMessage } from '../../shared/errors'
import { PER_STEP_PARSE } from '../../shared/parse-options'
import { isRecord } from '../../shared/records'

/** Every tool this module family provides, in the order the model sees them. */
export const allTools: readonly ToolDefinition[] = [
  ...readTools,
  ...editTools,
  ...reviewTools,
  ...codeTools,
  ...gitTools,
  ...execTools,
]

/** A tool by exact name or alias (a `functions.` namespace some models add is ignored). */
export function findTool(
  name: string,
  tools: readonly ToolDefinition[] = allTools,
): ToolDefinition | undefined {
  const wanted = name.trim().replace(/^functions\./, '')
  return tools.find((t) => t.name === wanted) ?? tools.find((t) => t.aliases?.includes(wanted))
}

export function unknownToolError(name: string, tools: readonly ToolDefinition[] = allTools): string {
  const names = tools.map((t) => t.name)
  const close = names.filter((n) => similar(n, name))
  const hint = close.length > 0 ? ` Did you mean ${close.map((n) => `"${n}"`).join(' or ')}?` : ''
  return `There is no tool named "${name}".${hint} Available tools: ${names.join(', ')}.`
}

/** A typo (small edit distance) or the same words in another order (`file_read`). */
function similar(candidate: string, asked: string): boolean {
  const a = candidate.toLowerCase()
  const b = asked.toLowerCase()
  const words = (s: string) =>
    s
      .split(/[_\W]+/)
      .filter(Boolean)
      .sort()
      .join('_')
  return editDistance(a, b) <= Math.max(2, Math.floor(a.length / 5)) || words(a) === words(b)
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}

const specCache = new WeakMap<ToolDefinition, ToolSpec>()

/** The JSON the providers send for each tool: zod → JSON Schema, descriptions included. */
export function toolSpecs(tools: readonly ToolDefinition[] = allTools): ToolSpec[] {
  return tools.map((tool) => {
    let spec = specCache.get(tool)
    if (!spec) {
      spec = { name: tool.name, description: tool.description, parameters: parametersOf(tool) }
      specCache.set(tool, spec)
    }
    return spec
  })
}

function parametersOf(tool: ToolDefinition): Record<string, unknown> {
  if (tool.parameters) return tool.parameters
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.input)
  return stripBoundsOf(schema)
}

/** zod writes ±2^53 bounds on every integer; they are noise in the model's context. */
function stripBoundsOf(node: object): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue
    out[key] = stripSafeIntegerBounds(value)
  }
  return out
}

function stripSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSafeIntegerBounds)
  if (node === null || typeof node !== 'object') return node
  return stripBoundsOf(node)
}

export type ParsedToolCall = { ok: true; input: unknown } | { ok: false; error: string }

/**
 * The model's raw argument text → validated input, or an error the model can fix
 * from: which field, what type was expected, and the tool's full signature.
 */
export function parseToolCall(tool: ToolDefinition, rawArguments: string): ParsedToolCall {
  const signature = `${tool.name} takes ${describeSignature(tool)}.`
  const text = stripFence(rawArguments ?? '').trim()
  let value: unknown = {}
  if (text !== '') {
    try {
      value = JSON.parse(text)
      // Some models encode the arguments object twice.
      if (typeof value === 'string' && value.trim().startsWith('{')) value = JSON.parse(value)
    } catch (err) {
      return {
        ok: false,
        error: `The arguments for ${tool.name} are not valid JSON (${errorMessage(err)}). Send a single JSON object. ${signature}`,
      }
    }
  }
  if (!isRecord(value)) {
    return {
      ok: false,
      error: `The arguments for ${tool.name} must be a JSON object, not ${describeValue(value)}. ${signature}`,
    }
  }
  const parsed = tool.input.safeParse(value, PER_STEP_PARSE)
  if (parsed.success) return { ok: true, input: parsed.data }
  const problems = parsed.error.issues.map((issue) => describeIssue(issue, value, tool))
  return { ok: false, error: `Invalid arguments for ${tool.name}: ${problems.join('; ')}. ${signature}` }
}

function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text)
  return fenced ? fenced[1] : text
}

type Issue = z.core.$ZodIssue

function describeIssue(issue: Issue, input: Record<string, unknown>, tool: ToolDefinition): string {
  const field = issue.path.map(String).join('.')
  const name = field === '' ? 'the arguments' : `"${field}"`
  const expected = expectedType(tool, field)
  const given = issue.path.reduce<unknown>(
    (v, key) => (v !== null && typeof v === 'object' ? Reflect.get(v, key) : undefined),
    input,
  )
  if (issue.code === 'invalid_type') {
    if (given === undefined) return `missing required argument ${name} (${expected ?? issue.expected})`
    return `argument ${name} must be ${article(expected ?? issue.expected)}, got ${describeValue(given)}`
  }
  return `argument ${name}${expected ? ` (${expected})` : ''}: ${issue.message}`
}

/** The declared parameters of a tool: each property's JSON type (when it names one), and which are required. */
function declaredParameters(tool: ToolDefinition): {
  types: Map<string, string | undefined>
  required: Set<string>
} {
  const { properties, required } = toolSpecs([tool])[0].parameters
  const types = new Map<string, string | undefined>()
  if (isRecord(properties))
    for (const [key, p] of Object.entries(properties)) {
      const type = isRecord(p) ? p.type : undefined
      // A server's schema may give a list of types (["string", "null"]): shown as written.
      types.set(key, type === undefined || type === null ? undefined : String(type))
    }
  const names = Array.isArray(required) ? required.filter((r) => typeof r === 'string') : []
  return { types, required: new Set(names) }
}

function expectedType(tool: ToolDefinition, field: string): string | undefined {
  return declaredParameters(tool).types.get(field)
}

function describeSignature(tool: ToolDefinition): string {
  const { types, required } = declaredParameters(tool)
  if (types.size === 0) return 'no arguments ({})'
  return [...types]
    .map(([key, type]) => `${key} (${type ?? 'any'}${required.has(key) ? ', required' : ', optional'})`)
    .join(', ')
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`
}

function describeValue(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`
  if (typeof v === 'object') return 'an object'
  return `${typeof v} ${String(v)}`
}
