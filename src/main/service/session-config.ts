import type { ApprovalPolicy, ProviderId, StepwiseEvent } from '../../shared/protocol'
import type { ProviderConfig } from '../providers/types'
import type { SessionRow } from '../store/types'
import type { ServiceContext } from './context'
import { flagModelOptions, readSettings, storedModelOptions } from './settings'

/** A session's model and approval policy, as its events say (session.started, then every switch). */
export interface SessionConfig {
  provider: ProviderId
  model: string
  baseUrl?: string
  policy: ApprovalPolicy
}

/** The config a stored session stands at: the model and policy it started with, then every switch since. */
export function configFromEvents(
  ctx: ServiceContext,
  row: SessionRow,
  events: readonly StepwiseEvent[],
): SessionConfig {
  let config: SessionConfig = {
    provider: row.provider as ProviderId,
    model: row.model,
    policy: readSettings(ctx.store).approvalPolicy,
  }
  for (const e of events) {
    if (e.type === 'session.started')
      config = { provider: e.provider, model: e.model, baseUrl: e.baseUrl, policy: e.approvalPolicy }
    else if (e.type === 'session.configured') config = applyConfigured(config, e)
  }
  return config
}

/**
 * A switch of model or policy applied to a session's config: live (`session/configure`)
 * and when a session is read back from its `session.configured` events, the same way.
 * A new provider drops the old server address unless the switch names one.
 */
export function applyConfigured(
  config: SessionConfig,
  change: { provider?: ProviderId; model?: string; baseUrl?: string; approvalPolicy?: ApprovalPolicy },
): SessionConfig {
  const newProvider = change.provider !== undefined && change.provider !== config.provider
  return {
    provider: change.provider ?? config.provider,
    model: change.model ?? config.model,
    baseUrl: change.baseUrl ?? (newProvider ? undefined : config.baseUrl),
    policy: change.approvalPolicy ?? config.policy,
  }
}

/** What a provider is built from: the session's model, the stored key, the window and stream limits. */
export function providerConfigOf(ctx: ServiceContext, config: SessionConfig): ProviderConfig {
  return {
    provider: config.provider,
    model: config.model,
    baseUrl: config.baseUrl,
    apiKey: ctx.keys.get(config.provider),
    // The window, temperature and stream limits: the host's flags, else the stored settings.
    ...storedModelOptions(ctx.store, flagModelOptions(ctx.defaults)),
  }
}

/** Whether two provider configs build the same provider (a key or a setting changed between turns, or not). */
export function sameProviderConfig(a: ProviderConfig, b: ProviderConfig): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
