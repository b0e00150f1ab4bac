import { useEffect, useMemo } from 'react'
import { catalogKey, loadModels, priceListOf, useCatalog } from '../models/catalog'
import { sessionBaseUrl } from '../models/choice'
import { useApp } from '../state/store'
import { priceOf, pricedSteps, sessionCost, type Cost } from './prices'

/** The open session's cost from the priced model lists; null when no price is known. */
export function useSessionCost(): Cost | null {
  const events = useApp((s) => s.events)
  const connected = useApp((s) => s.info !== null)
  const entries = useCatalog((s) => s.entries)
  const steps = useMemo(() => pricedSteps(events), [events])
  const baseUrl = sessionBaseUrl(events)
  // A local provider has no prices: only the priced ones are worth asking.
  const lists = useMemo(
    () => [...new Set(steps.map((s) => s.provider))].flatMap((p) => priceListOf(p, baseUrl) ?? []),
    [steps, baseUrl],
  )
  useEffect(() => {
    if (!connected) return
    for (const list of lists) void loadModels(list.provider, list.baseUrl)
  }, [lists, connected])

  return useMemo(
    () =>
      sessionCost(steps, (provider, model) => {
        const list = priceListOf(provider, baseUrl)
        const entry = list && entries[catalogKey(list.provider, list.baseUrl)]
        return entry ? priceOf(entry.models, model) : null
      }),
    [steps, entries, baseUrl],
  )
}
