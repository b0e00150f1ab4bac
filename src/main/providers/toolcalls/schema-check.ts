import { findTool } from '../../tools/registry'
import type { ToolSpec } from '../../../shared/tool-spec'
import { isObject, parseJson } from './json-scan'
import type { RawCall } from './types'

/*
 * Is a call read from text one the model could have meant? Its name must be a tool
 * offered in this request (after the prefixes models add), and its arguments must
 * fit that tool's JSON Schema. Lenient where the tools are (numbers and booleans
 * written as strings, null for an optional argument, objects written as JSON text),
 * strict on required and unknown properties.
 */

export type CheckedCall =
  | { ok: true; name: string; arguments: Record<string, unknown> }
  | { ok: false; name: string; problem: string; unknownTool: boolean }

/** `functions.read_file:0`, `default_api.read_file`, ` read_file ` → `read_file`. */
export function normaliseName(name: string): string {
  return name
    .trim()
    .replace(/^(?:functions|default_api|tools?)\./, '')
    .replace(/:\d+$/, '')
    .trim()
}

export function checkCall(call: RawCall, tools: readonly ToolSpec[]): CheckedCall {
  const written = normaliseName(call.name)
  const spec = offeredTool(written, tools)
  if (!spec) {
    return {
      ok: false,
      name: written,
      unknownTool: true,
      problem: `"${written}" is not one of the tools offered (${tools.map((t) => t.name).join(', ')})`,
    }
  }
  const args = argumentsObject(call.arguments)
  if (typeof args === 'string') return { ok: false, name: spec.name, unknownTool: false, problem: args }
  const problem = fitSchema(args, spec.parameters)
  if (problem) return { ok: false, name: spec.name, unknownTool: false, problem: `${spec.name}: ${problem}` }
  return { ok: true, name: spec.name, arguments: args }
}

/** The offered tool by name, or by an alias the tool registry knows (`create_file` → `write_file`). */
function offeredTool(name: string, tools: readonly ToolSpec[]): ToolSpec | undefined {
  const exact = tools.find((t) => t.name === name)
  if (exact) return exact
  const canonical = findTool(name)?.name
  return canonical ? tools.find((t) => t.name === canonical) : undefined
}

/** Arguments as an object, or a problem. A JSON string (even encoded twice) is decoded. */
function argumentsObject(raw: unknown): Record<string, unknown> | string {
  let value = raw
  for (let i = 0; i < 2 && typeof value === 'string'; i++) {
    if (value.trim() === '') return {}
    const parsed = parseJson(value)
    if (!parsed.ok) return `the arguments are not valid JSON (${parsed.error})`
    value = parsed.value
  }
  if (value === undefined || value === null) return {}
  if (!isObject(value)) return 'the arguments must be a JSON object'
  return value
}

interface Schema {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  items?: Schema
  enum?: unknown[]
  minLength?: number
}

/** Coerces `args` in place to the schema's types where that is lossless; returns a problem or undefined. */
function fitSchema(args: Record<string, unknown>, schema: Schema): string | undefined {
  const props = schema.properties ?? {}
  for (const key of schema.required ?? []) {
    if (args[key] === undefined || args[key] === null) return `missing required argument "${key}"`
  }
  for (const [key, value] of Object.entries(args)) {
    const prop = props[key]
    if (!prop) {
      if (schema.additionalProperties === false) return `unknown argument "${key}"`
      continue
    }
    if (value === null && !(schema.required ?? []).includes(key)) {
      delete args[key]
      continue
    }
    const coerced = coerce(value, prop)
    if (coerced === undefined)
      return `argument "${key}" must be ${typeName(prop)}, got ${JSON.stringify(value)}`
    args[key] = coerced
  }
  return undefined
}

/** The value as the property's type, or undefined when it cannot be without guessing. */
function coerce(value: unknown, prop: Schema): unknown {
  const types = prop.type === undefined ? [] : Array.isArray(prop.type) ? prop.type : [prop.type]
  if (types.length === 0 || types.some((t) => matches(value, t))) return value
  for (const type of types) {
    if (typeof value !== 'string') continue
    const s = value.trim()
    if ((type === 'integer' || type === 'number') && /^[+-]?\d+(\.\d+)?$/.test(s)) {
      const n = Number(s)
      if (type === 'number' || Number.isInteger(n)) return n
    }
    if (type === 'boolean' && /^(true|false)$/i.test(s)) return s.toLowerCase() === 'true'
    if (type === 'object' || type === 'array') {
      const parsed = parseJson(s)
      if (parsed.ok && matches(parsed.value, type)) return parsed.value
    }
  }
  // A number where text is expected is the model's slip, not a different meaning.
  if (types.includes('string') && (typeof value === 'number' || typeof value === 'boolean'))
    return String(value)
  return undefined
}

function matches(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'object':
      return isObject(value)
    case 'array':
      return Array.isArray(value)
    case 'null':
      return value === null
    default:
      return true
  }
}

function typeName(prop: Schema): string {
  const t = Array.isArray(prop.type) ? prop.type.join(' or ') : (prop.type ?? 'a value')
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`
}
