import { useCallback } from 'react'
import { PROVIDER_IDS, type ProviderId } from '../../../../shared/protocol'
import { catalogKey, useCatalog } from '../../models/catalog'
import { sessionBaseUrl } from '../../models/choice'
import { useApp } from '../../state/store'
import { priceOf } from '../../statusbar/prices'
import type { PriceOf } from './labels'

function isProvider(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value)
}

/**
 * List prices of a step's model, from the model lists the status bar's cost meter loads
 * (it asks the providers; this only reads what they answered).
 */
export function usePriceOf(): PriceOf {
  const entries = useCatalog((s) => s.entries)
  const baseUrl = useApp((s) => sessionBaseUrl(s.events))
  return useCallback(
    (provider: string, model: string) => {
      if (!isProvider(provider)) return null
      const entry = entries[catalogKey(provider, provider === 'openai-chat' ? baseUrl : undefined)]
      return entry ? priceOf(entry.models, model) : null
    },
    [entries, baseUrl],
  )
}
