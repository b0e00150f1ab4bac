import { create } from 'zustand'
import type { CommandOutput, ProviderGroup, ProviderId } from '../../../shared/protocol'
import { invoke, useApp } from '../state/store'
import { chooseModel, currentChoiceFor, type ModelChoice } from './choice'

/**
 * Every provider's models and the setup check of the current model, from one `models/catalog`
 * reply: the picker's list, the setup card and the status bar read this one store, so a Retry in
 * the picker clears the card at once. Refreshed when the current model changes and after
 * anything that may fix a problem (a key saved, an address set, a model pulled, Retry).
 */

type Setup = CommandOutput<'models/catalog'>['setup']

interface AllModels {
  providers: ProviderGroup[]
  /** The check of `setupKey`'s choice; null before the first reply. */
  setup: Setup | null
  setupKey: string | null
  loading: boolean
}

export const useAllModels = create<AllModels>(() => ({
  providers: [],
  setup: null,
  setupKey: null,
  loading: false,
}))

export function choiceKey(choice: ModelChoice | null | undefined): string | null {
  return choice ? `${choice.provider}\n${choice.model}\n${choice.baseUrl ?? ''}` : null
}

let lastChoice: ModelChoice | null = null
let generation = 0

/** Asks for every provider's models and the check of `choice` (default: the last one asked). */
export async function refreshCatalog(choice: ModelChoice | null = lastChoice): Promise<void> {
  lastChoice = choice
  if (!useApp.getState().info) return
  const mine = ++generation
  useAllModels.setState({ loading: true })
  try {
    const current = choice?.model ? { current: choice } : {}
    const reply = await invoke('models/catalog', current)
    // A newer request (another choice, a later Retry) answers for the present.
    if (mine !== generation) return
    useAllModels.setState({
      providers: reply.providers,
      setup: choice?.model ? reply.setup : null,
      setupKey: choiceKey(choice),
      loading: false,
    })
  } catch {
    if (mine === generation) useAllModels.setState({ loading: false }) // toasted by invoke
  }
}

export function groupOf(
  providers: readonly ProviderGroup[],
  provider: ProviderId,
): ProviderGroup | undefined {
  return providers.find((g) => g.provider === provider)
}

/**
 * Remembers a provider's server address in the core; a current model on that provider moves to
 * it (so the check, and the open chat's next turn, ask the new address).
 */
export async function setProviderAddress(provider: ProviderId, baseUrl: string | null): Promise<string> {
  const reply = await invoke('providers/set', { provider, baseUrl })
  const current = currentChoiceFor(useApp.getState().sessionId)
  if (current?.provider === provider && current.model && current.baseUrl !== reply.baseUrl)
    await chooseModel({ ...current, baseUrl: reply.baseUrl })
  else await refreshCatalog()
  return reply.baseUrl
}

/** Why `choice` cannot be sent a message yet (the check's first problem), or null when it can or is unchecked. */
export function useSetupBlocker(choice: ModelChoice | null): string | null {
  const key = choiceKey(choice)
  return useAllModels((s) =>
    s.setupKey === key && s.setup && !s.setup.ready ? (s.setup.problems[0]?.message ?? null) : null,
  )
}
