import type { ApprovalPolicy, ProviderId } from '../../shared/protocol'
import { parseModelRef } from '../../shared/model-ref'
import { storedBaseUrl } from './provider-addresses'
import type { Store } from '../store/types'

/** The model a new session uses when nothing names one. */
export const DEFAULT_MODELS: Partial<Record<ProviderId, string>> = {
  openai: 'gpt-4.1-mini',
  ollama: 'qwen2.5-coder:7b',
}

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
  const provider: ProviderId = flags.provider ?? stored ?? (env.OPENAI_API_KEY ? 'openai' : 'ollama')
  const model =
    flags.model ||
    envModel(provider, env) ||
    store.getSetting(`model.${provider}`) ||
    DEFAULT_MODELS[provider]
  const baseUrl =
    flags.baseUrl ||
    (provider === 'ollama' ? env.OLLAMA_HOST : env.OPENAI_BASE_URL) ||
    storedBaseUrl(store, provider)
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

/** `$OPENAI_MODEL` (Responses and Chat Completions) or `$OLLAMA_MODEL`: a default model without a flag. */
function envModel(provider: ProviderId, env: NodeJS.ProcessEnv): string | undefined {
  const value = provider === 'ollama' ? env.OLLAMA_MODEL : env.OPENAI_MODEL
  return value?.trim() || undefined
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
