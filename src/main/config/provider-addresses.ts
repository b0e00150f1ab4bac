import type { ProviderId } from '../../shared/protocol'
import type { Store } from '../store/types'

/* Each provider's server address as stored from an earlier run (the settings table, key `providers`); which address applies is service/provider-settings.ts. */

export const PROVIDERS_SETTING = 'providers'

export type StoredProviders = Partial<Record<ProviderId, { baseUrl?: string }>>

export function readStoredProviders(store: Pick<Store, 'getSetting'>): StoredProviders {
  try {
    const value = JSON.parse(store.getSetting(PROVIDERS_SETTING) ?? '{}') as unknown
    return value && typeof value === 'object' ? (value as StoredProviders) : {}
  } catch {
    return {}
  }
}

/** The stored address of a provider, for hosts with no service (the CLI's `--provider` alone). */
export function storedBaseUrl(store: Pick<Store, 'getSetting'>, provider: ProviderId): string | undefined {
  const value = readStoredProviders(store)[provider]?.baseUrl
  return typeof value === 'string' && value ? value : undefined
}
