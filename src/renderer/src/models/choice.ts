import { useMemo } from 'react'
import { create } from 'zustand'
import type { StepwiseEvent } from '../../../shared/protocol'
import { invoke, provideModelChoice, useApp, type AppInfo } from '../state/store'
import { parseChoice, type ModelChoice } from './stored'

export type { ModelChoice } from './stored'

/**
 * Which model the user picked. `choice` is the default for new sessions: the last pick (kept in
 * localStorage), else the host's defaults from `app/info`. A pick made while a session is open is
 * sent with `session/configure` and remembered per session here, because the session's view only
 * learns its model from the next `assistant.message`.
 */

interface ChoiceState {
  choice: ModelChoice | null
  /** Set once the user picked: the host's defaults no longer replace it. */
  picked: boolean
  sessions: Record<string, ModelChoice>
}

const STORAGE_KEY = 'stepwise.model-choice'

function readStored(): ModelChoice | null {
  try {
    return parseChoice(globalThis.localStorage?.getItem(STORAGE_KEY) ?? null)
  } catch {
    return null
  }
}

function store(choice: ModelChoice): void {
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, JSON.stringify(choice))
  } catch {
    // Storage can be off (private windows); the pick still holds until reload.
  }
}

function fromDefaults(info: AppInfo | null): ModelChoice | null {
  if (!info) return null
  const { provider, model, baseUrl } = info.defaults
  return { provider, model, ...(baseUrl ? { baseUrl } : {}) }
}

const stored = readStored()
export const useChoiceStore = create<ChoiceState>(() => ({
  choice: stored ?? fromDefaults(useApp.getState().info),
  picked: stored !== null,
  sessions: {},
}))

// Until the user picks, follow the host's defaults (they arrive with `app/info`).
useApp.subscribe((s, prev) => {
  if (s.info === prev.info || useChoiceStore.getState().picked) return
  useChoiceStore.setState({ choice: fromDefaults(s.info) })
})

/** The default for new sessions, `{provider, model, baseUrl}`; null until `app/info` arrived. */
export function useModelChoice(): ModelChoice | null {
  return useChoiceStore((s) => s.choice)
}

/** The default for new sessions, to spread into `session/create`: `{ repo, ...currentChoice() }`. */
export function currentChoice(): ModelChoice | undefined {
  return useChoiceStore.getState().choice ?? fromDefaults(useApp.getState().info) ?? undefined
}

/** The base URL the open session started with (the view does not keep it). */
export function sessionBaseUrl(events: readonly StepwiseEvent[]): string | undefined {
  const first = events[0]
  return first?.type === 'session.started' ? first.baseUrl : undefined
}

/** What decides a session's model: the pick for it, what its events say, the default for new ones. */
interface ChoiceSources {
  sessionId: string | null
  picked: ModelChoice | undefined
  /** From the open session's events; null when it is not the one open. */
  provider: string | null
  model: string | null
  baseUrl: string | undefined
  fallback: ModelChoice | null
}

/** What a session runs on: a pick for it, else what its events say, else the default. */
function effective({
  sessionId,
  picked,
  provider,
  model,
  baseUrl,
  fallback,
}: ChoiceSources): ModelChoice | null {
  if (!sessionId) return fallback
  if (picked) return picked
  if (provider && model) {
    const id = provider as ModelChoice['provider']
    return { provider: id, model, ...(baseUrl ? { baseUrl } : {}) }
  }
  return fallback
}

/**
 * What the open session runs on (a pick for it, else what its events say), or the default for new
 * sessions when none is open.
 */
export function useEffectiveChoice(): ModelChoice | null {
  const sessionId = useApp((s) => s.sessionId)
  const provider = useApp((s) => s.view.provider)
  const model = useApp((s) => s.view.model)
  const baseUrl = useApp((s) => s.view.baseUrl ?? undefined)
  const picked = useChoiceStore((s) => (sessionId ? s.sessions[sessionId] : undefined))
  const fallback = useChoiceStore((s) => s.choice)
  return useMemo(
    () => effective({ sessionId, picked, provider, model, baseUrl, fallback }),
    [sessionId, picked, provider, model, baseUrl, fallback],
  )
}

/** The same outside React: what `sessionId` (or, with none, a new chat) runs on now. */
export function currentChoiceFor(sessionId: string | null): ModelChoice | null {
  const app = useApp.getState()
  const choices = useChoiceStore.getState()
  const open = sessionId !== null && sessionId === app.sessionId
  return effective({
    sessionId,
    picked: sessionId ? choices.sessions[sessionId] : undefined,
    provider: open ? app.view.provider : null,
    model: open ? app.view.model : null,
    baseUrl: open ? (app.view.baseUrl ?? undefined) : undefined,
    fallback: choices.choice ?? fromDefaults(app.info),
  })
}

/**
 * Makes `next` the default for new sessions and, when a session is open, switches it from its next
 * turn on. Rejects (after a toast) when the core refuses; nothing changes then.
 */
export async function chooseModel(next: ModelChoice): Promise<void> {
  const { sessionId } = useApp.getState()
  if (sessionId) {
    await invoke('session/configure', {
      sessionId,
      provider: next.provider,
      model: next.model,
      ...(next.baseUrl ? { baseUrl: next.baseUrl } : {}),
    })
  }
  store(next)
  useChoiceStore.setState((s) => ({
    choice: next,
    picked: true,
    sessions: sessionId ? { ...s.sessions, [sessionId]: next } : s.sessions,
  }))
}

provideModelChoice(currentChoice)
