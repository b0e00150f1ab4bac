import { useCallback } from 'react'
import { catalogKey, priceListOf, useCatalog } from '../../models/catalog'
import { sessionBaseUrl } from '../../models/choice'
import { useApp } from '../../state/store'
import { priceOf } from '../../statusbar/prices'
import type { PriceOf } from './labels'

/**
 * List prices of a step's model, from the model lists the status bar's cost meter loads
 * (it asks the providers; this only reads what they answered).
 */
export function usePriceOf(): PriceOf {
  const entries = useCatalog((s) => s.entries)
  const baseUrl = useApp((s) => sessionBaseUrl(s.events))
  return useCallback(
    (provider: string, model: string) => {
      const list = priceListOf(provider, baseUrl)
      const entry = list && entries[catalogKey(list.provider, list.baseUrl)]
      return entry ? priceOf(entry.models, model) : null
    },
    [entries, baseUrl],
  )
}
