import type { CommandInput, CommandOutput, StepwiseEvent } from '../../shared/protocol'
import { runReview, type ReviewOptions } from '../review/review'
import type { ServiceContext } from './context'
import { resolveProjectDir } from './service-error'
import type { SessionRuntime } from './sessions'

/**
 * A code review in a session of its own (docs/review.md), for every host: the app's Review
 * action (`review/start`) and `stepwise review` in process. Read-only tools plus
 * report_finding, its findings on the timeline as `review.finding`; every event goes out
 * through the service, and while it runs the session is busy (Stop applies to it).
 */
export function reviewInService(
  ctx: ServiceContext,
  sessions: SessionRuntime,
  opts: Omit<ReviewOptions, 'emit' | 'signal'> & { signal?: AbortSignal },
): { opened: Promise<string>; result: ReturnType<typeof runReview> } {
  const controller = new AbortController()
  opts.signal?.addEventListener('abort', () => controller.abort())
  if (opts.signal?.aborted) controller.abort()
  let opened: (sessionId: string) => void = () => undefined
  const started = new Promise<string>((resolve) => (opened = resolve))
  const emit = (event: StepwiseEvent): void => {
    if (event.type === 'session.started') opened(event.sessionId)
    ctx.broadcast(event)
  }
  const result = runReview(ctx.store, { ...opts, emit, signal: controller.signal })
  // Busy once it exists: Stop, the list's running state and refusals apply to it.
  void started.then((sessionId) => sessions.track(sessionId, controller, result))
  return { opened: started, result }
}

/** `review/start`: answers as soon as the session exists, so the renderer can open it and watch. */
export async function startReview(
  ctx: ServiceContext,
  sessions: SessionRuntime,
  input: CommandInput<'review/start'>,
): Promise<CommandOutput<'review/start'>> {
  const repo = resolveProjectDir(input.repo)
  const { provider, model, baseUrl } =
    input.provider && input.model
      ? { provider: input.provider, model: input.model, baseUrl: input.baseUrl }
      : ctx.defaults
  const review = reviewInService(ctx, sessions, {
    repo,
    target: input.target,
    focus: input.focus,
    provider: { provider, model, baseUrl, apiKey: ctx.keys.get(provider) },
  })
  const first = await Promise.race([review.opened, review.result])
  if (typeof first === 'string') {
    ctx.broadcast({ type: 'host.sessions-changed', sessionId: first })
    return { sessionId: first, message: `Reviewing ${input.target ?? 'the uncommitted changes'}…` }
  }
  if (!first.ok) return { sessionId: null, message: first.error }
  return { sessionId: first.sessionId, message: first.summary }
}
