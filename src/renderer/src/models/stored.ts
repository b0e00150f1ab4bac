import { isRecord } from '../../../shared/records'
import { knownProviderIdSchema, type ProviderId } from '../../../shared/protocol'

/** The model a session runs on: what `session/create` and `session/configure` take. */
export interface ModelChoice {
  provider: ProviderId
  model: string
  baseUrl?: string
}

/** A choice read back from storage, or null when it is missing or not one. */
export function parseChoice(raw: string | null): ModelChoice | null {
  if (!raw) return null
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    return null
  }
  if (!isRecord(value)) return null
  const { provider, model, baseUrl } = value
  const parsed = knownProviderIdSchema.safeParse(provider)
  if (!parsed.success || typeof model !== 'string' || model.trim() === '') return null
  if (baseUrl !== undefined && !isHttpUrl(baseUrl)) return null
  return { provider: parsed.data, model, ...(typeof baseUrl === 'string' ? { baseUrl } : {}) }
}

export function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

export function sameChoice(a: ModelChoice | null | undefined, b: ModelChoice | null | undefined): boolean {
  if (!a || !b) return a === b
  return a.provider === b.provider && a.model === b.model && (a.baseUrl ?? '') === (b.baseUrl ?? '')
}
