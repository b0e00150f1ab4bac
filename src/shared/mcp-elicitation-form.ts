/*
 * The form of an elicitation (a flat JSON Schema: strings, numbers, integers, booleans, enums)
 * as fields to ask one by one, and a typed answer read back from text. Shared by the CLI's
 * prompt and the app's card (src/renderer/src/mcp/ElicitationCard.tsx).
 */

import { recordOf } from './records'

export interface FormField {
  name: string
  title: string
  description?: string
  type: 'string' | 'number' | 'integer' | 'boolean'
  required: boolean
  /** Allowed values (enum / oneOf consts), with their labels. */
  choices?: { value: string; label: string }[]
  default?: string | number | boolean
}

const FIELD_TYPES: readonly FormField['type'][] = ['string', 'number', 'integer', 'boolean']

function isFieldType(value: unknown): value is FormField['type'] {
  return FIELD_TYPES.some((t) => t === value)
}

function isDefaultValue(value: unknown): value is NonNullable<FormField['default']> {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

/** The strings of `value` when it is a list (a server's `required`, `enumNames`). */
function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : String(v))) : undefined
}

/** A property's allowed values (enum / oneOf consts), with their labels. */
function choicesOf(p: Record<string, unknown>): FormField['choices'] {
  if (Array.isArray(p.enum)) {
    const names = strings(p.enumNames)
    return p.enum.map((value, i) => ({ value: String(value), label: names?.[i] ?? String(value) }))
  }
  if (Array.isArray(p.oneOf))
    return p.oneOf.map((raw) => {
      const o = recordOf(raw)
      return { value: String(o.const), label: String(o.title ?? o.const) }
    })
  return undefined
}

/** The schema comes from an MCP server: every part is checked as it is read. */
export function formFields(schema: Record<string, unknown> | undefined): FormField[] {
  const props = recordOf(schema?.properties)
  const required = new Set(strings(schema?.required) ?? [])
  return Object.entries(props).map(([name, raw]) => {
    const p = recordOf(raw)
    const type = isFieldType(p.type) ? p.type : 'string'
    const choices = choicesOf(p)
    const field: FormField = { name, title: String(p.title ?? name), type, required: required.has(name) }
    if (typeof p.description === 'string') field.description = p.description
    if (choices) field.choices = choices
    if (isDefaultValue(p.default)) field.default = p.default
    return field
  })
}

/**
 * Reads one answer: `undefined` for an empty answer (the default then applies), the typed value,
 * or an error to say before asking again.
 */
export function readAnswer(
  field: FormField,
  text: string,
): { value?: string | number | boolean; error?: string } {
  const t = text.trim()
  if (t === '') return field.required && field.default === undefined ? { error: 'an answer is needed' } : {}
  if (field.choices) {
    const byIndex = /^\d+$/.test(t) ? field.choices[Number(t) - 1] : undefined
    const choice =
      byIndex ?? field.choices.find((c) => c.value === t || c.label.toLowerCase() === t.toLowerCase())
    return choice
      ? { value: choice.value }
      : { error: `one of ${field.choices.map((c) => c.value).join(', ')}` }
  }
  if (field.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(t)) return { value: true }
    if (/^(n|no|false)$/i.test(t)) return { value: false }
    return { error: 'yes or no' }
  }
  if (field.type === 'number' || field.type === 'integer') {
    const n = Number(t)
    if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n)))
      return { error: field.type === 'integer' ? 'a whole number' : 'a number' }
    return { value: n }
  }
  return { value: t }
}
