import type { ApprovalPolicy, ProviderId } from '../../shared/protocol'
import { parseModelRef } from '../../shared/model-ref'
import { storedBaseUrl } from './provider-addresses'
import { isProviderId, providerDescriptor, providerDescriptors } from '../../shared/providers'
import { envBaseUrl, envModel } from './provider-env'
import type { Store } from '../store/types'

export interface ModelChoice {
  provider: ProviderId
  model: string | undefined
  baseUrl: string | undefined
}

/**
 * Flags, then the environment, then stored settings, then defaults (the CLI and the app agree).
 * `--model PROVIDER:NAME` names the provider as `/model` does in the app (it wins over
 * `--provider`, whose `--base-url` then no longer applies); a provider's server is the flag's,
 * else the environment's, else the one the app remembered for it (config/provider-addresses.ts).
 */
export function chooseModel(
  given: { provider?: ProviderId; model?: string; baseUrl?: string },
  env: NodeJS.ProcessEnv,
  store: Pick<Store, 'getSetting'>,
): ModelChoice {
  const flags = withModelRef(given)
  const stored = store.getSetting('provider') as ProviderId | undefined
  const provider: ProviderId = flags.provider ?? knownOrUndefined(stored) ?? firstChoice(env)
  const model =
    flags.model ||
    envModel(provider, env) ||
    store.getSetting(`model.${provider}`) ||
    providerDescriptor(provider).defaultModel
  const baseUrl = flags.baseUrl || envBaseUrl(provider, env) || storedBaseUrl(store, provider)
  return { provider, model, baseUrl: baseUrl || undefined }
}

/** `--model ollama:qwen2.5-coder:7b`: the provider taken off the name (model-ref.ts). */
export function withModelRef<T extends { provider?: ProviderId; model?: string; baseUrl?: string }>(
  flags: T,
): T {
  if (!flags.model) return flags
  const ref = parseModelRef(flags.model)
  if (!ref.provider) return flags
  const moved = flags.provider !== undefined && flags.provider !== ref.provider
  return { ...flags, provider: ref.provider, model: ref.model, baseUrl: moved ? undefined : flags.baseUrl }
}

/** A provider stored by an earlier run that is no longer registered is forgotten, not failed on. */
function knownOrUndefined(stored: string | undefined): ProviderId | undefined {
  return stored && isProviderId(stored) ? stored : undefined
}

/**
 * With nothing chosen: the first provider that needs a key whose key is in the environment
 * (`$OPENAI_API_KEY` → OpenAI), else the first one that needs none (Ollama, on this machine).
 */
function firstChoice(env: NodeJS.ProcessEnv): ProviderId {
  const all = providerDescriptors()
  const keyed = all.find((d) => d.apiKey === 'required' && d.env.apiKey && env[d.env.apiKey])
  return (keyed ?? all.find((d) => d.apiKey === 'none') ?? all[0]).id
}

/** The app's defaults for new sessions; a provider with no default model gets an empty one to pick. */
export function defaultModels(
  env: NodeJS.ProcessEnv,
  store: Pick<Store, 'getSetting'>,
  flags: { provider?: ProviderId; model?: string; baseUrl?: string } = {},
  approvalPolicy?: ApprovalPolicy,
): { provider: ProviderId; model: string; baseUrl?: string; approvalPolicy?: ApprovalPolicy } {
  const choice = chooseModel(flags, env, store)
  return { provider: choice.provider, model: choice.model ?? '', baseUrl: choice.baseUrl, approvalPolicy }
}
