import type { ProviderId } from '../../shared/protocol'
import { providerBaseUrl, providerClient } from '../providers'
import { providerDescriptor } from '../../shared/providers'
import { envBaseUrl } from '../config/provider-env'
import {
  PROVIDERS_SETTING,
  readStoredProviders,
  storedBaseUrl,
  type StoredProviders,
} from '../config/provider-addresses'
import type { ServiceContext } from './context'
import { ServiceError } from './service-error'

/**
 * Each provider's server address, remembered apart (switching to Ollama and back keeps the
 * compatible server's URL). Which address applies, first to last:
 *   1. the one entered in the app during this run;
 *   2. the host's start value (`--base-url` for the start provider, else `$OLLAMA_HOST` /
 *      `$OPENAI_BASE_URL`): a flag or variable given at start wins over what was stored before;
 *   3. the one stored from an earlier run (the settings table, key `providers`);
 *   4. the provider's default (Ollama's 127.0.0.1:11434, OpenAI's API; none for a compatible server).
 * Keys are kept per provider by the key store (context.ts), never here.
 */

/** Addresses entered in this run, per service (a test's service does not see another's). */
const enteredThisRun = new WeakMap<ServiceContext, Partial<Record<ProviderId, string | null>>>()

function startValue(ctx: ServiceContext, provider: ProviderId): string | undefined {
  if (ctx.defaults.provider === provider && ctx.defaults.baseUrl) return ctx.defaults.baseUrl
  return envBaseUrl(provider, process.env)
}

/** The address a provider's sessions use, or undefined for the provider's own default. */
export function rememberedBaseUrl(ctx: ServiceContext, provider: ProviderId): string | undefined {
  const entered = enteredThisRun.get(ctx)?.[provider]
  if (entered !== undefined) return entered ?? startValue(ctx, provider)
  const stored = storedBaseUrl(ctx.store, provider)
  return startValue(ctx, provider) ?? stored
}

/** The address actually asked: the remembered one, else the provider's default ('' when it has none). */
export function effectiveBaseUrl(ctx: ServiceContext, provider: ProviderId, baseUrl?: string): string {
  return providerBaseUrl(provider, baseUrl ?? rememberedBaseUrl(ctx, provider))
}

/** A typed address made whole (`localhost` → Ollama's `http://localhost:11434`), or a clear error. */
export function normaliseBaseUrl(provider: ProviderId, raw: string): string {
  const text = raw.trim().replace(/\/+$/, '')
  try {
    const normalise = providerClient(provider).normaliseAddress
    const url = normalise ? normalise(text) : new URL(text).toString().replace(/\/+$/, '')
    const { protocol } = new URL(url)
    if (protocol === 'http:' || protocol === 'https:') return url
  } catch {
    // said below
  }
  const { label, localServer, defaultBaseUrl } = providerDescriptor(provider)
  throw new ServiceError(
    localServer && defaultBaseUrl
      ? `“${raw}” is not an address: enter ${label}'s, e.g. ${defaultBaseUrl} or a host name.`
      : `“${raw}” is not a URL: enter one starting with http:// or https://, e.g. http://localhost:1234/v1.`,
  )
}

/** `providers/set`: remembers (or forgets, with null) a provider's address, for this run and later ones. */
export function setProviderBaseUrl(
  ctx: ServiceContext,
  provider: ProviderId,
  raw: string | null,
): { baseUrl: string } {
  const url = raw === null ? null : normaliseBaseUrl(provider, raw)
  const stored = readStoredProviders(ctx.store)
  const next: StoredProviders = { ...stored, [provider]: url ? { ...stored[provider], baseUrl: url } : {} }
  ctx.store.setSetting(PROVIDERS_SETTING, JSON.stringify(next))
  enteredThisRun.set(ctx, { ...enteredThisRun.get(ctx), [provider]: url })
  return { baseUrl: effectiveBaseUrl(ctx, provider) }
}
