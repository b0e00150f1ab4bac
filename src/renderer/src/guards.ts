/** A plain object (not null, not an array): what the renderer reads fields of when data comes typed `unknown`. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
