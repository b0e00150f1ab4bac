import { z } from 'zod'

/*
 * Argument schemas that forgive what models commonly get wrong without changing
 * meaning: numbers sent as strings ("12"), booleans as "true"/"false", and null
 * for an argument they mean to leave out. Anything else still fails validation
 * with a message naming the field.
 */

const nullToUndefined = (v: unknown) => (v === null ? undefined : v)

function toNumber(v: unknown): unknown {
  v = nullToUndefined(v)
  if (typeof v === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(v)) return Number(v)
  return v
}

function toBoolean(v: unknown): unknown {
  v = nullToUndefined(v)
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase()
    if (s === 'true') return true
    if (s === 'false') return false
  }
  return v
}

/** A whole number ≥ `min`. */
export const int = (description: string, min = 1) =>
  z.preprocess(toNumber, z.number().int().min(min)).describe(description)

export const optionalInt = (description: string, min = 1) =>
  z.preprocess(toNumber, z.number().int().min(min).optional()).describe(description)

export const optionalBool = (description: string) =>
  z.preprocess(toBoolean, z.boolean().optional()).describe(description)

export const optionalString = (description: string) =>
  z.preprocess(nullToUndefined, z.string().optional()).describe(description)

export const pathArg = (description = 'File path relative to the project root, e.g. "src/index.ts".') =>
  z.string().describe(description)
