import type { CommandInput, CommandOutput, StepwiseEvent } from '../../shared/protocol'
import { runReview } from '../review/review'
import type { ServiceContext } from './context'
import { resolveProjectDir, type SessionRuntime } from './sessions'

/**
 * The app's Review action: `stepwise review` in a session of its own, read-only
 * tools plus report_finding, its findings on the timeline as `review.finding`.
 * Answers as soon as the session exists, so the renderer can open it and watch.
 */
export async function startReview(
  ctx: ServiceContext,
  sessions: SessionRuntime,
  input: CommandInput<'review/start'>,
): Promise<CommandOutput<'review/start'>> {
  const repo = resolveProjectDir(input.repo)
  const controller = new AbortController()
  let opened: (sessionId: string) => void = () => undefined
  const started = new Promise<string>((resolve) => (opened = resolve))
  const emit = (event: StepwiseEvent): void => {
    if (event.type === 'session.started') opened(event.sessionId)
    ctx.broadcast(event)
  }
  const { provider, model, baseUrl } =
    input.provider && input.model
      ? { provider: input.provider, model: input.model, baseUrl: input.baseUrl }
      : ctx.defaults
  const run = runReview(ctx.store, {
    repo,
    target: input.target,
    focus: input.focus,
    provider: { provider, model, baseUrl, apiKey: ctx.keys.get(provider) },
    emit,
    signal: controller.signal,
  })
  const first = await Promise.race([started, run])
  if (typeof first === 'string') {
    sessions.track(first, controller, run)
    ctx.broadcast({ type: 'host.sessions-changed', sessionId: first })
    return { sessionId: first, message: `Reviewing ${input.target ?? 'the uncommitted changes'}…` }
  }
  if (!first.ok) return { sessionId: null, message: first.error }
  return { sessionId: first.sessionId, message: first.summary }
}
