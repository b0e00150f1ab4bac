import {
  OLLAMA,
  OPENAI,
  OPENAI_CHAT,
  providerDescriptor,
  registerProviderDescriptor,
  unregisterProviderDescriptor,
  type ProviderDescriptor,
} from '../../shared/providers'
import { OllamaProvider } from './ollama'
import { OpenAIChatProvider } from './openai-chat'
import { OpenAIResponsesProvider } from './openai-responses'
import { ProviderError, type ModelOptions, type ModelProvider, type ProviderConfig } from './types'

/**
 * How the core talks to a provider: its descriptor (src/shared/providers, what the app shows and
 * checks) and how to build the client that streams its turns. One entry per provider; adding a
 * provider is its descriptor and a client file that passes both to `registerProvider`
 * (docs/newcomers.md#a-new-provider).
 */
export interface ProviderClient {
  readonly descriptor: ProviderDescriptor
  /** A typed address made whole (Ollama: `localhost` → `http://localhost:11434`); absent: trimmed as given. */
  normaliseAddress?(raw: string): string
  /** The client for one session's model; `baseUrl` is what `baseUrl()` above gave. */
  create(config: ProviderConfig, baseUrl: string): ModelProvider
}

const clients = new Map<string, ProviderClient>()

/** Registers a provider with the core and its descriptor with the app; an id taken is refused. */
export function registerProvider(client: ProviderClient): void {
  const id = client.descriptor.id
  if (clients.has(id) && clients.get(id) !== client)
    throw new Error(`Provider id "${id}" is taken: choose another id.`)
  registerProviderDescriptor(client.descriptor)
  clients.set(id, client)
}

/** Removes a provider registered at run time (tests clean up with it). */
export function unregisterProvider(id: string): void {
  unregisterProviderDescriptor(id)
  clients.delete(id)
}

/** The client entry of a provider; an unknown id is refused naming the known ones. */
export function providerClient(id: string): ProviderClient {
  const client = clients.get(id)
  if (client) return client
  providerDescriptor(id) // throws "Unknown provider … use one of …"
  throw new Error(`Provider "${id}" has a descriptor but no client: register it with registerProvider.`)
}

/** The address a provider's sessions use: the configured one made whole, else its default ('' when none). */
export function providerBaseUrl(id: string, configured: string | undefined): string {
  const client = providerClient(id)
  if (!configured) return client.descriptor.defaultBaseUrl ?? ''
  return client.normaliseAddress ? client.normaliseAddress(configured) : trimSlash(configured)
}

/** The stream limits and sampling the user set, as every client takes them (limits.ts has the defaults). */
export function modelOptions(config: ProviderConfig): Omit<ModelOptions, 'maxNumCtx'> {
  const { numCtx, temperature, firstTokenTimeoutSec, idleTimeoutSec, maxOutputTokens } = config
  return { numCtx, temperature, firstTokenTimeoutSec, idleTimeoutSec, maxOutputTokens }
}

export const OPENAI_DEFAULT_BASE_URL = OPENAI.defaultBaseUrl!
export const OLLAMA_DEFAULT_BASE_URL = OLLAMA.defaultBaseUrl!

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

/** OpenAI's own API refuses key-less requests: say so before the first one. */
function requireOpenAIKey(config: ProviderConfig, baseUrl: string): void {
  if (!config.apiKey && isOpenAI(baseUrl))
    throw new ProviderError(
      'auth',
      'No API key for OpenAI. Set OPENAI_API_KEY (or enter a key in the provider settings).',
    )
}

const ollamaClient: ProviderClient = {
  descriptor: OLLAMA,
  normaliseAddress: ollamaBaseUrl,
  create: (config, baseUrl) =>
    new OllamaProvider(config.model, baseUrl, config.numCtx, {
      ...modelOptions(config),
      maxNumCtx: config.maxNumCtx,
    }),
}

const openaiClient: ProviderClient = {
  descriptor: OPENAI,
  create(config, baseUrl) {
    requireOpenAIKey(config, baseUrl)
    return new OpenAIResponsesProvider(config.model, baseUrl, config.apiKey, modelOptions(config))
  },
}

const openaiChatClient: ProviderClient = {
  descriptor: OPENAI_CHAT,
  create(config, configured) {
    // A compatible server has no default of its own; a client built without one asks OpenAI's.
    const baseUrl = configured || OPENAI_DEFAULT_BASE_URL
    requireOpenAIKey(config, baseUrl)
    return new OpenAIChatProvider(config.model, baseUrl, config.apiKey, modelOptions(config))
  },
}

for (const client of [ollamaClient, openaiClient, openaiChatClient]) registerProvider(client)

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
