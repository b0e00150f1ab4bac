import { create } from 'zustand'
import type { ModelInfo, ProviderId } from '../../../shared/protocol'
import { isProviderId, providerDescriptor } from '../../../shared/providers'
import { invoke, useApp } from '../state/store'
import { refreshCatalog } from './allModels'
import { errorMessage } from '../../../shared/errors'

/**
 * The models one server offers (`models/list`), cached by provider and base URL, for the prices
 * the status bar and the overview show. The picker and the setup card read every provider at
 * once from allModels.ts.
 */

export interface CatalogEntry {
  loading: boolean
  reachable: boolean
  error?: string
  models: ModelInfo[]
}

interface CatalogState {
  entries: Record<string, CatalogEntry>
}

export const useCatalog = create<CatalogState>(() => ({ entries: {} }))

export function catalogKey(provider: ProviderId, baseUrl?: string): string {
  return `${provider} ${baseUrl ?? ''}`
}

/**
 * Where a session's prices come from (its descriptor's `pricing`): the provider's list, or the
 * list of the server at the session's address; null for a free (local) or unknown provider.
 */
export function priceListOf(
  provider: string,
  baseUrl: string | undefined,
): { provider: ProviderId; baseUrl?: string } | null {
  if (!isProviderId(provider)) return null
  const { pricing } = providerDescriptor(provider)
  if (pricing === 'none') return null
  return pricing === 'per-address' ? { provider, baseUrl } : { provider }
}

const inFlight = new Map<string, Promise<void>>()

/** Loads a server's model list once; `force` asks again (after a pull, a new key, Retry). */
export function loadModels(provider: ProviderId, baseUrl?: string, force = false): Promise<void> {
  const key = catalogKey(provider, baseUrl)
  const running = inFlight.get(key)
  if (running) return running
  if (!force && useCatalog.getState().entries[key]) return Promise.resolve()
  // Not connected yet: `app/info` comes first, so wait for it rather than toast an error.
  if (!useApp.getState().info) return Promise.resolve()
  const set = (entry: CatalogEntry): void =>
    useCatalog.setState((s) => ({ entries: { ...s.entries, [key]: entry } }))
  const previous = useCatalog.getState().entries[key]
  set({ loading: true, reachable: previous?.reachable ?? true, models: previous?.models ?? [] })
  const request = invoke('models/list', { provider, ...(baseUrl ? { baseUrl } : {}) })
    .then(
      (reply) =>
        set({ loading: false, reachable: reply.reachable, error: reply.error, models: reply.models }),
      (err: unknown) =>
        set({
          loading: false,
          reachable: false,
          error: errorMessage(err),
          models: [],
        }),
    )
    .finally(() => inFlight.delete(key))
  inFlight.set(key, request)
  return request
}

export function useCatalogEntry(provider: ProviderId | null, baseUrl?: string): CatalogEntry | undefined {
  return useCatalog((s) => (provider ? s.entries[catalogKey(provider, baseUrl)] : undefined))
}

/** Asks the setup check (and every provider's list) again: a key saved, a model pulled. */
export function requestRecheck(): void {
  void refreshCatalog()
}
