import type { CommandInput, CommandOutput } from '../../shared/protocol'
import type { ServiceContext } from './context'
import { ServiceError } from './service-error'
import type { MessageQueue } from './queue'
import { errorMessage } from '../../shared/errors'

/**
 * The message queue's commands (docs/sessions.md#messages-during-a-turn): a message sent while a
 * turn runs waits in the session's queue (service/queue.ts) and reaches the model at the turn's
 * next step boundary; sent when no turn runs, it starts one.
 */

/** What the queue commands need of the session runtime (service/sessions.ts). */
export interface QueueHost {
  liveSession(sessionId: string): { turn?: unknown; queue: MessageQueue }
  startTurn(sessionId: string, message: string): Promise<CommandOutput<'turn/start'>>
  /** Throws when the message must start a turn of its own (a server prompt, MCP resources). */
  checkQueued(sessionId: string, text: string): void
}

/** `queue/add`: waits for the running turn's next step, or starts a turn when none runs. */
export async function enqueue(
  sessions: QueueHost,
  input: CommandInput<'queue/add'>,
): Promise<CommandOutput<'queue/add'>> {
  const live = sessions.liveSession(input.sessionId)
  if (!live.turn) {
    await sessions.startTurn(input.sessionId, input.text)
    return { id: '', started: true }
  }
  sessions.checkQueued(input.sessionId, input.text)
  return { id: live.queue.add(input.text), started: false }
}

export function updateQueued(
  sessions: QueueHost,
  input: CommandInput<'queue/update'>,
): CommandOutput<'queue/update'> {
  if (!sessions.liveSession(input.sessionId).queue.update(input.id, input.text))
    throw new ServiceError('That message was already delivered to the model, or taken back.')
  return { ok: true }
}

export function removeQueued(
  sessions: QueueHost,
  input: CommandInput<'queue/remove'>,
): CommandOutput<'queue/remove'> {
  if (!sessions.liveSession(input.sessionId).queue.remove(input.id))
    throw new ServiceError('That message was already delivered to the model, or taken back.')
  return { ok: true }
}

/** `queue/flush`: the queued messages, joined, become the next turn's message. */
export async function flushQueue(
  sessions: QueueHost,
  input: CommandInput<'queue/flush'>,
): Promise<CommandOutput<'queue/flush'>> {
  const live = sessions.liveSession(input.sessionId)
  if (live.turn)
    throw new ServiceError('A turn is running: the queued messages reach the model at its next step.')
  const texts = live.queue.take()
  if (texts.length === 0) return { accepted: false }
  try {
    return await sessions.startTurn(input.sessionId, texts.join('\n\n'))
  } catch (err) {
    // Not delivered: the messages go back to the queue, so the user can send them again.
    for (const text of texts) live.queue.add(text)
    throw err
  }
}

/** A queue that could not start its turn after the last one ended: said on the timeline. */
export function reportQueueFailure(ctx: ServiceContext, sessionId: string, err: unknown): void {
  const detail = errorMessage(err)
  ctx.broadcast(
    ctx.store.appendEvent(sessionId, {
      type: 'error',
      code: 'internal',
      message: `The queued messages could not start a turn: ${detail}`,
      hint: 'They are still queued: fix what the error says, then send them.',
    }),
  )
}
