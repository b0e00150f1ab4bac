import { providerBaseUrl, providerClient } from './registry'
import type { ModelProvider, ProviderConfig } from './types'

/**
 * Builds the provider for a config, from the provider's registry entry (registry.ts).
 * Environment fallbacks (OPENAI_API_KEY, OPENAI_BASE_URL, OLLAMA_HOST) are the host's job;
 * this only applies defaults.
 */
export function createProvider(config: ProviderConfig): ModelProvider {
  return providerClient(config.provider).create(config, providerBaseUrl(config.provider, config.baseUrl))
}

export {
  OLLAMA_DEFAULT_BASE_URL,
  OPENAI_DEFAULT_BASE_URL,
  modelOptions,
  ollamaBaseUrl,
  registerProvider,
  unregisterProvider,
  providerClient,
  providerBaseUrl,
  type ProviderClient,
} from './registry'
export { withRetry, type RetryOptions } from './retry'
export { parseTextToolCalls, textToolPrompt } from './text-fallback'
export { OllamaProvider } from './ollama'
export * from './types'
