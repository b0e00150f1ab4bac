/**
 * The one check for "a JSON object" (not null, not an array), for data that arrives as
 * `unknown`: parsed text, a model's arguments, a server's answer. A type guard, so what
 * passes is read field by field without a cast.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The one check for "a JSON array of strings". */
export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}

/** `text` parsed as JSON; undefined when it is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** `text` parsed as JSON when it is an object; undefined for anything else (or not JSON). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const value = parseJsonOrUndefined(text)
  return isRecord(value) ? value : undefined
}

/**
 * `value` when it is a JSON object, else an empty one: for reading optional parts of a
 * server's answer field by field (a missing or malformed part reads as having no fields).
 */
export function recordOf(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {}
}
