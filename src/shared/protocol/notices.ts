import { z } from 'zod'
import type { StepwiseEvent } from './events'
import { mcpElicitationsNotice, mcpStatusNotice } from './mcp'

/**
 * Host notices: what a host tells the renderer that is not part of a session's
 * recorded history (so never stored or replayed). Their `type` starts with `host.`,
 * which keeps them apart from events on the one message stream.
 */

export const pullProgressNotice = z.object({
  type: z.literal('host.pull-progress'),
  model: z.string(),
  status: z.string(),
  completed: z.number().nonnegative().optional(),
  total: z.number().nonnegative().optional(),
  done: z.boolean(),
  error: z.string().optional(),
})

/** The list of sessions changed (one was created, finished, forked or renamed). */
export const sessionsChangedNotice = z.object({
  type: z.literal('host.sessions-changed'),
  sessionId: z.string(),
})

/** A turn ended: the session is idle again and takes the next message. */
export const turnEndedNotice = z.object({
  type: z.literal('host.turn-ended'),
  sessionId: z.string(),
})

/** The messages waiting in a session's queue changed (added, edited, taken back or delivered). */
export const queueChangedNotice = z.object({
  type: z.literal('host.queue-changed'),
  sessionId: z.string(),
  items: z.array(z.object({ id: z.string(), text: z.string() })),
})

/** How far the project's code index build got (it runs in the background); `done` phase: finished. */
export const indexProgressNotice = z.object({
  type: z.literal('host.index-progress'),
  root: z.string(),
  phase: z.enum(['listing', 'loading', 'indexing', 'done']),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
})

export const hostNoticeSchema = z.discriminatedUnion('type', [
  pullProgressNotice,
  sessionsChangedNotice,
  turnEndedNotice,
  queueChangedNotice,
  indexProgressNotice,
  mcpStatusNotice,
  mcpElicitationsNotice,
])
export type HostNotice = z.infer<typeof hostNoticeSchema>

/** Everything on the host → renderer stream. */
export type HostMessage = StepwiseEvent | HostNotice

export function isHostNotice(message: HostMessage): message is HostNotice {
  return message.type.startsWith('host.')
}
