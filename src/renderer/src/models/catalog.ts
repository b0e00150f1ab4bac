import { create } from 'zustand'
import type { ModelInfo, ProviderId } from '../../../shared/protocol'
import { invoke, useApp } from '../state/store'
import { refreshCatalog } from './allModels'

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
          error: err instanceof Error ? err.message : String(err),
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
