import { OllamaProvider } from './ollama'
import { OpenAIChatProvider } from './openai-chat'
import { OpenAIResponsesProvider } from './openai-responses'
import { ProviderError, type ModelProvider, type ProviderConfig } from './types'

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1'
export const OLLAMA_DEFAULT_BASE_URL = 'http://127.0.0.1:11434'

/**
 * Builds the provider for a config. Environment fallbacks (OPENAI_API_KEY,
 * OPENAI_BASE_URL, OLLAMA_HOST) are the host's job; this only applies defaults.
 */
export function createProvider(config: ProviderConfig): ModelProvider {
  switch (config.provider) {
    case 'openai':
    case 'openai-chat': {
      const baseUrl = trimSlash(config.baseUrl ?? OPENAI_DEFAULT_BASE_URL)
      if (!config.apiKey && isOpenAI(baseUrl)) {
        throw new ProviderError(
          'auth',
          'No API key for OpenAI. Set OPENAI_API_KEY (or enter a key in the provider settings).',
        )
      }
      const options = {
        numCtx: config.numCtx,
        temperature: config.temperature,
        ...streamOptions(config),
      }
      return config.provider === 'openai'
        ? new OpenAIResponsesProvider(config.model, baseUrl, config.apiKey, options)
        : new OpenAIChatProvider(config.model, baseUrl, config.apiKey, options)
    }
    case 'ollama':
      return new OllamaProvider(config.model, ollamaBaseUrl(config.baseUrl), config.numCtx, {
        maxNumCtx: config.maxNumCtx,
        temperature: config.temperature,
        ...streamOptions(config),
      })
  }
}

/**
 * `localhost` → `http://localhost:11434`: a host without a port gets Ollama's 11434,
 * except an explicit `https://` host (a reverse proxy), which keeps 443 as Ollama's
 * own OLLAMA_HOST parsing does.
 */
export function ollamaBaseUrl(raw: string | undefined): string {
  if (!raw) return OLLAMA_DEFAULT_BASE_URL
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`
  const url = new URL(withScheme)
  const explicitPort = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^/:]*):\d+/i.test(withScheme)
  if (!explicitPort && url.protocol === 'http:') url.port = '11434'
  return trimSlash(url.toString())
}

/** The stream limits the user set (limits.ts has the defaults). */
function streamOptions(config: ProviderConfig): Pick<ProviderConfig, StreamOption> {
  const { firstTokenTimeoutSec, idleTimeoutSec, maxOutputTokens } = config
  return { firstTokenTimeoutSec, idleTimeoutSec, maxOutputTokens }
}
type StreamOption = 'firstTokenTimeoutSec' | 'idleTimeoutSec' | 'maxOutputTokens'

function isOpenAI(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com'
  } catch {
    return false
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '')
}

export { withRetry, type RetryOptions } from './retry'
export { parseTextToolCalls, textToolPrompt } from './text-fallback'
export { OllamaProvider } from './ollama'
export * from './types'
