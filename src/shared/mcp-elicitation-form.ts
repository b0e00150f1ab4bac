/*
 * The form of an elicitation (a flat JSON Schema: strings, numbers, integers, booleans, enums)
 * as fields to ask one by one, and a typed answer read back from text. Shared by the CLI's
 * prompt and the app's card (src/renderer/src/mcp/ElicitationCard.tsx).
 */

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

type Prop = Record<string, unknown>

export function formFields(schema: Record<string, unknown> | undefined): FormField[] {
  const props = (schema?.properties ?? {}) as Record<string, Prop>
  const required = new Set((schema?.required as string[] | undefined) ?? [])
  return Object.entries(props).map(([name, p]) => {
    const type = (
      ['number', 'integer', 'boolean'].includes(p.type as string) ? p.type : 'string'
    ) as FormField['type']
    const names = p.enumNames as string[] | undefined
    const choices = Array.isArray(p.enum)
      ? (p.enum as string[]).map((value, i) => ({ value: String(value), label: names?.[i] ?? String(value) }))
      : Array.isArray(p.oneOf)
        ? (p.oneOf as Prop[]).map((o) => ({ value: String(o.const), label: String(o.title ?? o.const) }))
        : undefined
    const field: FormField = { name, title: String(p.title ?? name), type, required: required.has(name) }
    if (typeof p.description === 'string') field.description = p.description
    if (choices) field.choices = choices
    if (['string', 'number', 'boolean'].includes(typeof p.default))
      field.default = p.default as FormField['default']
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
