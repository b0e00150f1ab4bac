import { z } from 'zod'
import { appCommandSchemas } from './commands-app'
import { contextCommandSchemas } from './commands-context'
import { modelCommandSchemas } from './commands-models'
import { mcpCommandSchemas } from './mcp'
import { approvalAnswerSchema, approvalCommandSchemas } from './approval'
import {
  approvalPolicySchema,
  knownProviderIdSchema,
  sessionStatusSchema,
  stepwiseEventSchema,
} from './events'

/**
 * Commands: what a host (renderer, CLI) asks of the core, named `resource/verb`.
 * Each has an input schema (validated by the host: the renderer is untrusted)
 * and an output schema.
 */
export const commandSchemas = {
  'session/create': {
    input: z.object({
      repo: z.string().min(1),
      provider: knownProviderIdSchema.optional(),
      model: z.string().min(1).optional(),
      baseUrl: z.string().url().optional(),
      approvalPolicy: approvalPolicySchema.optional(),
      maxSteps: z.number().int().positive().max(10_000).optional(),
    }),
    output: z.object({ sessionId: z.string() }),
  },
  'session/list': {
    input: z.object({ repo: z.string().optional() }),
    output: z.object({
      sessions: z.array(
        z.object({
          id: z.string(),
          repo: z.string(),
          title: z.string(),
          status: sessionStatusSchema,
          parentId: z.string().nullable(),
          provider: z.string(),
          model: z.string(),
          createdAt: z.number(),
          updatedAt: z.number(),
        }),
      ),
    }),
  },
  'session/events': {
    input: z.object({ sessionId: z.string(), afterSeq: z.number().int().optional() }),
    output: z.object({ events: z.array(stepwiseEventSchema) }),
  },
  'turn/start': {
    input: z.object({
      sessionId: z.string(),
      text: z.string().min(1).max(200_000),
      /** When the model says it is done, run the project's build and tests and send failures back. */
      untilGreen: z.boolean().optional(),
    }),
    output: z.object({ accepted: z.boolean() }),
  },
  /** Asks the model again from where the last turn stopped (after a timeout or a dropped server). */
  'turn/retry': {
    input: z.object({ sessionId: z.string() }),
    output: z.object({ accepted: z.boolean() }),
  },
  'turn/interrupt': {
    input: z.object({ sessionId: z.string() }),
    output: z.object({ interrupted: z.boolean() }),
  },
  /**
   * A message sent while a turn runs waits in the session's queue and reaches the model at the
   * next step boundary (after the running tool calls), or starts a turn when none runs.
   */
  'queue/add': {
    input: z.object({ sessionId: z.string(), text: z.string().min(1).max(200_000) }),
    output: z.object({ id: z.string(), started: z.boolean() }),
  },
  /** Edits a queued message that has not been delivered yet. */
  'queue/update': {
    input: z.object({ sessionId: z.string(), id: z.string(), text: z.string().min(1).max(200_000) }),
    output: z.object({ ok: z.boolean() }),
  },
  /** Takes a queued message back before it is delivered. */
  'queue/remove': {
    input: z.object({ sessionId: z.string(), id: z.string() }),
    output: z.object({ ok: z.boolean() }),
  },
  /** Starts a turn with the queued messages now (they stayed queued after a stop or an error). */
  'queue/flush': {
    input: z.object({ sessionId: z.string() }),
    output: z.object({ accepted: z.boolean() }),
  },
  /** The user's answer to a waiting approval (./approval.ts), for the call it names. */
  'approval/resolve': {
    input: z.intersection(z.object({ sessionId: z.string(), callId: z.string() }), approvalAnswerSchema),
    output: z.object({ ok: z.boolean() }),
  },
  ...approvalCommandSchemas,
  ...appCommandSchemas,
  ...contextCommandSchemas,
  ...modelCommandSchemas,
  ...mcpCommandSchemas,
} as const

export type CommandName = keyof typeof commandSchemas
export type CommandInput<C extends CommandName> = z.infer<(typeof commandSchemas)[C]['input']>
export type CommandOutput<C extends CommandName> = z.infer<(typeof commandSchemas)[C]['output']>

/** Validates an untrusted command; throws a ZodError naming the bad field. */
export function parseCommand<C extends CommandName>(name: C, input: unknown): CommandInput<C> {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- the parse is by `name`'s own schema; TypeScript cannot tie an indexed generic lookup to `C` (the correlated-union limit)
  return commandSchemas[name].input.parse(input) as CommandInput<C>
}

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commandSchemas, name)
}
