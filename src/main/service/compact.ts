import type { CommandInput, CommandOutput } from '../../shared/protocol'
import { compactSession } from '../session/compact'
import type { ServiceContext } from './context'
import { ServiceError, type SessionRuntime } from './sessions'
import { errorMessage } from '../../shared/errors'

/**
 * `session/compact` (`/compact [focus]` in the app): compacts a session's context between turns
 * (session/compact.ts). While it runs the session counts as busy, so a message waits for it and
 * Stop cancels it; a running turn refuses it.
 */
export async function compactOnRequest(
  ctx: ServiceContext,
  sessions: SessionRuntime,
  input: CommandInput<'session/compact'>,
): Promise<CommandOutput<'session/compact'>> {
  const events = ctx.store.listEvents(input.sessionId)
  const live = sessions.liveSession(input.sessionId, events)
  if (live.turn)
    throw new ServiceError(
      'A turn is running in this session: compact once it has ended (or press Stop first).',
    )
  const controller = new AbortController()
  let finished = (): void => {}
  live.turn = { controller, done: new Promise<void>((resolve) => (finished = resolve)) }
  try {
    return await compactSession(
      ctx.store,
      {
        sessionId: input.sessionId,
        repo: live.repo,
        provider: sessions.providerConfig(live.config),
        focus: input.focus || undefined,
        events,
        emit: ctx.broadcast,
      },
      controller.signal,
    )
  } catch (err) {
    if (controller.signal.aborted) throw new ServiceError('Compaction stopped: nothing was changed.')
    const detail = errorMessage(err)
    throw new ServiceError(`Compaction failed, nothing was changed: ${detail}`)
  } finally {
    live.turn = undefined
    finished()
  }
}
