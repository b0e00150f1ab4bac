import { z } from 'zod'
import { modelInfoSchema, setupProblemSchema } from './commands-app'
import { knownProviderIdSchema, providerIdSchema } from './events'

/**
 * Every configured provider's models in one list, the per-provider server addresses, and
 * `/model NAME` resolved across providers. Merged into `commandSchemas` (commands.ts).
 */

const choiceSchema = z.object({
  provider: knownProviderIdSchema,
  model: z.string(),
  baseUrl: z.string().url().optional(),
})

export const providerGroupSchema = z.object({
  provider: providerIdSchema,
  /** The server asked: remembered for this provider, else the host's start value, else the default. */
  baseUrl: z.string(),
  /**
   * Set up enough to be asked: Ollama always (it has a default address); OpenAI with a key or
   * an address of its own; a compatible server once it has an address.
   */
  configured: z.boolean(),
  keySet: z.boolean(),
  reachable: z.boolean(),
  error: z.string().optional(),
  models: z.array(modelInfoSchema),
})
export type ProviderGroup = z.infer<typeof providerGroupSchema>

const candidateSchema = z.object({
  provider: providerIdSchema,
  model: z.string(),
  baseUrl: z.string().optional(),
})
export type ModelCandidate = z.infer<typeof candidateSchema>

export const modelCommandSchemas = {
  /**
   * Every provider, its server, whether it answered and its models; and what stands between the
   * user and `current` working (the setup card: empty `problems` when it is ready).
   */
  'models/catalog': {
    input: z.object({ current: choiceSchema.optional() }),
    output: z.object({
      providers: z.array(providerGroupSchema),
      setup: z.object({
        /** The current model can be sent a message (an unlisted name on a cloud server still counts). */
        ready: z.boolean(),
        problems: z.array(setupProblemSchema),
      }),
    }),
  },
  /** Remembers a provider's server address (null: back to the host's start value or the default). */
  'providers/set': {
    input: z.object({
      provider: knownProviderIdSchema,
      baseUrl: z.string().trim().min(1).max(2000).nullable(),
    }),
    output: z.object({ baseUrl: z.string() }),
  },
  /**
   * `/model NAME` or `/model PROVIDER:NAME`, looked up on every configured provider. `found`
   * carries the choice to switch to; `ambiguous` and `unknown` say why not and what would match.
   */
  'models/resolve': {
    input: z.object({ name: z.string().trim().min(1).max(300), current: choiceSchema.optional() }),
    output: z.object({
      status: z.enum(['found', 'ambiguous', 'unknown']),
      message: z.string(),
      choice: candidateSchema.optional(),
      candidates: z.array(candidateSchema),
    }),
  },
} as const
