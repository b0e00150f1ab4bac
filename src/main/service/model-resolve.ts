import type {
  CommandInput,
  CommandOutput,
  ModelCandidate,
  ProviderGroup,
  ProviderId,
} from '../../shared/protocol'
import { formatModelRef, parseModelRef, sameModelName } from '../../shared/model-ref'
import { providerDescriptor, providerLabel } from '../../shared/providers'
import type { ServiceContext } from './context'
import { providerGroups } from './model-catalog'
import { rememberedBaseUrl } from './provider-settings'

/**
 * `/model NAME` across providers: the name is looked up on every configured provider's list,
 * `PROVIDER:NAME` on that provider's only. A name is switched to only when exactly one place
 * has it (the current provider first); a name nobody lists is never switched to, and Ollama is
 * never asked to pull it: the reply says what exists and how to name it.
 */

type Reply = CommandOutput<'models/resolve'>

function candidate(ctx: ServiceContext, provider: ProviderId, model: string): ModelCandidate {
  const baseUrl = rememberedBaseUrl(ctx, provider)
  return { provider, model, ...(baseUrl ? { baseUrl } : {}) }
}

function where(c: ModelCandidate): string {
  return `${c.model} (${providerLabel(c.provider)})`
}

/** The names a group lists that match `model` (Ollama's `name` = `name:latest`). */
function matches(group: ProviderGroup, model: string): string[] {
  return group.models.map((m) => m.name).filter((name) => sameModelName(name, model))
}

/** Close names, for "did you mean": the ones that contain what was typed, case aside. */
function nearby(ctx: ServiceContext, groups: readonly ProviderGroup[], model: string): ModelCandidate[] {
  const needle = model.toLowerCase()
  return groups
    .flatMap((g) =>
      g.models
        .filter((m) => m.name.toLowerCase().includes(needle))
        .map((m) => candidate(ctx, g.provider, m.name)),
    )
    .slice(0, 5)
}

function unknown(message: string, candidates: ModelCandidate[]): Reply {
  const hint = candidates.length > 0 ? ` Did you mean ${candidates.map(where).join(', ')}?` : ''
  return { status: 'unknown', message: message + hint, candidates }
}

function onProvider(ctx: ServiceContext, group: ProviderGroup, model: string): Reply {
  const { label, apiKey, canPull, localServer } = providerDescriptor(group.provider)
  if (!group.configured)
    return unknown(
      apiKey === 'required'
        ? `${label} has no API key yet: enter one in the model picker, then try again.`
        : `No ${label} server is set up: enter its base URL in the model picker, then try again.`,
      [],
    )
  if (!group.reachable)
    return unknown(
      `${label} at ${group.baseUrl} did not answer (${group.error ?? 'no reply'}), so ${model} was not switched to.`,
      [],
    )
  const [found] = matches(group, model)
  if (found) {
    const choice = candidate(ctx, group.provider, found)
    return {
      status: 'found',
      message: `Model: ${where(choice)}, from the next turn on.`,
      choice,
      candidates: [choice],
    }
  }
  if (canPull)
    return unknown(
      `${model} is not pulled in ${label}: pull it from the model picker${localServer?.pull ? ` (or \`${localServer.pull} ${model}\`)` : ''}, then switch.`,
      nearby(ctx, [group], model),
    )
  // A cloud server may answer for a name it does not list; naming the provider says to try it.
  const choice = candidate(ctx, group.provider, model)
  return {
    status: 'found',
    message: `Model: ${where(choice)}, from the next turn on. The server does not list it; your next message will tell whether it answers.`,
    choice,
    candidates: [choice],
  }
}

export async function resolveModel(
  ctx: ServiceContext,
  input: CommandInput<'models/resolve'>,
): Promise<Reply> {
  const ref = parseModelRef(input.name)
  const groups = await providerGroups(ctx)
  if (ref.provider)
    return onProvider(
      ctx,
      groups.find((g) => g.provider === ref.provider)!,
      ref.model,
    )

  const found = groups.flatMap((g) =>
    matches(g, ref.model)
      .slice(0, 1)
      .map((name) => candidate(ctx, g.provider, name)),
  )
  const current = input.current?.provider
  const here = found.find((c) => c.provider === current)
  const choice = here ?? (found.length === 1 ? found[0] : undefined)
  if (choice) {
    const others = found.filter((c) => c !== choice)
    const also =
      others.length > 0
        ? ` Also on ${others.map((c) => providerLabel(c.provider)).join(', ')}: say /model ${formatModelRef(others[0].provider, others[0].model)} for that one.`
        : ''
    return {
      status: 'found',
      message: `Model: ${where(choice)}, from the next turn on.${also}`,
      choice,
      candidates: found,
    }
  }
  if (found.length > 1)
    return {
      status: 'ambiguous',
      message: `${ref.model} is on ${found.map((c) => providerLabel(c.provider)).join(' and ')}: say which, e.g. /model ${found.map((c) => formatModelRef(c.provider, c.model)).join(' or /model ')}.`,
      candidates: found,
    }
  const silent = groups.filter((g) => g.configured && !g.reachable).map((g) => providerLabel(g.provider))
  const unasked =
    silent.length > 0
      ? ` (${silent.join(' and ')} did not answer, so ${silent.length > 1 ? 'their' : 'its'} models were not searched)`
      : ''
  return unknown(
    `No configured provider lists a model named ${ref.model}${unasked}.`,
    nearby(ctx, groups, ref.model),
  )
}
