import { useEffect, useMemo } from 'react'
import { PROVIDER_IDS, type ProviderId } from '../../../shared/protocol'
import { catalogKey, loadModels, useCatalog } from '../models/catalog'
import { sessionBaseUrl } from '../models/choice'
import { useApp } from '../state/store'
import { priceOf, pricedSteps, sessionCost, type Cost } from './prices'

function isProvider(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value)
}

/** Only an OpenAI-compatible server is told apart by its URL; OpenAI's list is the same for all. */
function urlFor(provider: ProviderId, baseUrl: string | undefined): string | undefined {
  return provider === 'openai-chat' ? baseUrl : undefined
}

/** The open session's cost from the priced model lists; null when no price is known. */
export function useSessionCost(): Cost | null {
  const events = useApp((s) => s.events)
  const connected = useApp((s) => s.info !== null)
  const entries = useCatalog((s) => s.entries)
  const steps = useMemo(() => pricedSteps(events), [events])
  const baseUrl = sessionBaseUrl(events)
  // Ollama runs locally and has no prices: only cloud-style providers are worth asking.
  const providers = useMemo(
    () => [...new Set(steps.map((s) => s.provider))].filter((p) => p !== 'ollama' && isProvider(p)),
    [steps],
  )
  useEffect(() => {
    if (!connected) return
    for (const provider of providers) {
      if (isProvider(provider)) void loadModels(provider, urlFor(provider, baseUrl))
    }
  }, [providers, baseUrl, connected])

  return useMemo(
    () =>
      sessionCost(steps, (provider, model) => {
        if (!isProvider(provider)) return null
        const entry = entries[catalogKey(provider, urlFor(provider, baseUrl))]
        return entry ? priceOf(entry.models, model) : null
      }),
    [steps, entries, baseUrl],
  )
}
