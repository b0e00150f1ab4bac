import type { StepwiseEvent } from '../../shared/protocol'
import { buildSystemPrompt } from '../agent/prompt'
import { transcriptFromEvents } from '../providers/transcript'
import { ModelWindow } from '../context/model-window'
import { createProvider } from '../providers'
import type { ModelProvider, ModelRequest, ProviderConfig } from '../providers/types'
import { createSandbox } from '../containment/sandbox'
import type { Store } from '../store/types'
import { allTools } from '../tools/registry'
import { prepareCodeContext } from './code-context'

/**
 * Compaction on request (`/compact [focus]` in the app, `stepwise sessions compact ID`): between
 * turns, the session's context is summarised the way the agent loop does when the window fills
 * (context/model-window.ts), and the `context.compacted` event it records makes every later turn start
 * from the summary (agent/resume.ts). The caller makes sure no turn of the session is running.
 */

export interface CompactSetup {
  sessionId: string
  /** The project folder, already resolved: its rules and repo map are part of the request counted. */
  repo: string
  provider: ProviderConfig
  /** For tests: a provider built elsewhere. */
  providerOverride?: ModelProvider
  /** What the summary should keep above all. */
  focus?: string
  /** The session's events, when the caller has them already. */
  events?: readonly StepwiseEvent[]
  /** Called with the compaction event after it is stored. */
  emit?: (event: StepwiseEvent) => void
}

export interface CompactOutcome {
  compacted: boolean
  /** The next request's size before and after, estimated (system prompt, tools and transcript). */
  beforeTokens: number
  afterTokens: number
  /** One line for the user. */
  message: string
}

export async function compactSession(
  store: Store,
  setup: CompactSetup,
  signal: AbortSignal,
): Promise<CompactOutcome> {
  const events = setup.events ?? store.listEvents(setup.sessionId)
  const transcript = transcriptFromEvents(events, events.at(-1)?.seq ?? 0)
  if (transcript.length === 0)
    return {
      compacted: false,
      beforeTokens: 0,
      afterTokens: 0,
      message: 'The chat is empty: nothing to compact.',
    }
  const sandbox = await createSandbox(setup.repo)
  const provider = setup.providerOverride ?? createProvider(setup.provider)
  // The request as the next turn would send it, so the figures match the context meter.
  const code = await prepareCodeContext(store, sandbox, provider, { signal })
  const system = buildSystemPrompt(sandbox.root, { extra: code.repoMap?.text })
  const window = new ModelWindow(
    provider,
    (draft) => {
      const event = store.appendEvent(setup.sessionId, draft)
      setup.emit?.(event)
    },
    (entry) => store.appendTraffic(setup.sessionId, entry),
  )
  const request: ModelRequest = {
    system: system.text,
    transcript,
    tools: await window.toolSpecs(allTools, signal),
  }
  const done = await window.compactNow(request, signal, setup.focus)
  const figures = `${done.beforeTokens.toLocaleString('en')} → ${done.afterTokens.toLocaleString('en')} tokens`
  if (done.summary === undefined)
    return {
      compacted: false,
      ...done,
      message: `Nothing to compact: what comes before the last exchange is already short or a summary (about ${done.beforeTokens.toLocaleString('en')} tokens in all).`,
    }
  return {
    compacted: true,
    beforeTokens: done.beforeTokens,
    afterTokens: done.afterTokens,
    message: `Compacted the context: ${figures}. The first message and the latest answer stay word for word; the rest is now a summary.`,
  }
}
