import {
  type CommandInput,
  type CommandOutput,
  type ModelInfo,
  type ProviderGroup,
  type ProviderId,
  type SetupProblem,
} from '../../shared/protocol'
import { sameModelName } from '../../shared/model-ref'
import { providerDescriptor, providerIds, providerLabel } from '../../shared/providers'
import type { ServiceContext } from './context'
import { listServer } from './models'
import { effectiveBaseUrl } from './provider-settings'

/**
 * Every provider's models in one list (`models/catalog`), and the one check of what stands
 * between the user and a working model: the setup card, `/model` and the status bar read it
 * from here, so they cannot disagree.
 */

type Choice = { provider: ProviderId; model: string; baseUrl?: string }
type Listing = { reachable: boolean; error?: string; models: ModelInfo[] }

/** Whether a provider is set up enough to be asked for its models (see ProviderGroup.configured). */
function isConfigured(ctx: ServiceContext, provider: ProviderId, baseUrl: string): boolean {
  if (baseUrl === '') return false
  return !keyMissing(ctx, provider, baseUrl)
}

/** A provider that needs a key, at its own address, with none set (elsewhere a proxy may not ask). */
function keyMissing(ctx: ServiceContext, provider: ProviderId, base: string): boolean {
  const d = providerDescriptor(provider)
  return d.apiKey === 'required' && !ctx.keys.get(provider) && base === d.defaultBaseUrl
}

/** Every provider with its server, key state and models; the unconfigured ones are not asked. */
export async function providerGroups(ctx: ServiceContext): Promise<ProviderGroup[]> {
  return Promise.all(
    providerIds().map(async (provider) => {
      const baseUrl = effectiveBaseUrl(ctx, provider)
      const configured = isConfigured(ctx, provider, baseUrl)
      const keySet = Boolean(ctx.keys.get(provider))
      const listing: Listing = configured
        ? await listServer(ctx, provider, baseUrl)
        : { reachable: false, models: [] }
      return { provider, baseUrl, configured, keySet, ...listing }
    }),
  )
}

/**
 * What stands between the user and `choice` working, each with its fix. An OpenAI-compatible
 * server or OpenAI not listing the name is no error (many answer for names they do not list):
 * it is said, and the model counts as ready.
 */
export function setupProblems(
  ctx: ServiceContext,
  choice: Choice,
  base: string,
  listing: Listing,
): SetupProblem[] {
  const label = providerLabel(choice.provider)
  if (!choice.model.trim())
    return [
      { code: 'no-model', message: `No ${label} model is chosen.`, fix: 'Pick one from the model list.' },
    ]
  const { env, localServer, canPull } = providerDescriptor(choice.provider)
  if (keyMissing(ctx, choice.provider, base))
    return [
      {
        code: 'key-missing',
        message: `No ${label} API key is set.`,
        fix: `Enter your key here or in the model picker${env.apiKey ? `, or set ${env.apiKey} before starting Stepwise` : ''}.`,
      },
    ]
  if (!base)
    return [
      {
        code: 'no-address',
        message: `No ${label} server address is set.`,
        fix: 'Enter its base URL, e.g. http://localhost:1234/v1 for LM Studio.',
      },
    ]
  if (!listing.reachable)
    return [
      localServer
        ? {
            code: 'server-down',
            message: `${label} is not running at ${base}.`,
            fix: `Start it with \`${localServer.start}\` (or open the ${label} app), or enter its address, then Retry.`,
          }
        : {
            code: 'server-down',
            message: `${label} at ${base} did not answer: ${listing.error ?? 'no reply'}.`,
            fix: 'Check the address and that the server runs; a wrong key is refused with 401.',
          },
    ]
  if (listing.models.some((m) => sameModelName(m.name, choice.model))) return []
  if (canPull)
    return [
      {
        code: 'model-missing',
        message:
          listing.models.length === 0
            ? `${label} has no models yet: ${choice.model} is not pulled.`
            : `The model ${choice.model} is not pulled.`,
        fix: `Pull it here${localServer?.pull ? `, or run \`${localServer.pull} ${choice.model}\`` : ''}.`,
      },
    ]
  return [
    {
      code: 'model-unlisted',
      message: `${choice.model} is not listed by the server.`,
      fix: 'Many servers answer for names they do not list: send a message to try it.',
    },
  ]
}

/** Problems that still let a message be sent. */
export function isReady(problems: readonly SetupProblem[]): boolean {
  return problems.every((p) => p.code === 'model-unlisted')
}

export async function modelCatalog(
  ctx: ServiceContext,
  input: CommandInput<'models/catalog'>,
): Promise<CommandOutput<'models/catalog'>> {
  const providers = await providerGroups(ctx)
  if (!input.current) return { providers, setup: { ready: false, problems: [] } }
  const { current } = input
  const base = effectiveBaseUrl(ctx, current.provider, current.baseUrl)
  const group = providers.find((g) => g.provider === current.provider)!
  // The current choice may run on another server than the one remembered (an older chat's).
  const listing =
    group.baseUrl === base && group.configured ? group : await listServer(ctx, current.provider, base)
  const problems = setupProblems(ctx, current, base, listing)
  return { providers, setup: { ready: isReady(problems), problems } }
}

/** `models/check`: the same check for one choice, without the other providers. */
export async function checkModel(
  ctx: ServiceContext,
  input: CommandInput<'models/check'>,
): Promise<CommandOutput<'models/check'>> {
  const base = effectiveBaseUrl(ctx, input.provider, input.baseUrl)
  const listing =
    keyMissing(ctx, input.provider, base) || !base
      ? { reachable: false, models: [] }
      : await listServer(ctx, input.provider, base)
  const problems = setupProblems(ctx, input, base, listing)
  return { ok: isReady(problems), problems }
}
